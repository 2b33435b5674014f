"""How the site's pages and files travel: versioned, long-cached assets (``assets``, served by
``serving``) and compressed responses (``compression``). Knows nothing of rooms or games."""
