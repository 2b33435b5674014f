"""HTTP: the pages and the JSON API, one router per resource."""
