"""bench/lighthouse.py: what it reads from a Lighthouse report (the four scores, the bytes of a
first visit, the metrics and the audits that did not pass)."""

from __future__ import annotations

from tests.bench_scripts import load_bench_script


def test_a_reports_scores_bytes_metrics_and_failed_audits_are_read():
    lighthouse = load_bench_script("lighthouse")
    audits = {key: {"score": 1, "scoreDisplayMode": "numeric", "displayValue": f"{key} value"}
              for key in lighthouse.METRICS}
    audits.update({
        "total-byte-weight": {"score": 1, "scoreDisplayMode": "numeric", "numericValue": 41534.0},
        "unminified-javascript": {"score": 0, "scoreDisplayMode": "metricSavings",
                                  "displayValue": "Potential savings of 3 KiB"},
        "meta-description": {"score": 1, "scoreDisplayMode": "binary"},
        "diagnostics": {"score": None, "scoreDisplayMode": "informative"},
        "network-rtt": {"score": 0, "scoreDisplayMode": "informative"},
    })
    report = {
        "finalDisplayedUrl": "http://127.0.0.1:1/", "lighthouseVersion": "12.2.3",
        "fetchTime": "2026-12-07T00:00:00Z", "audits": audits,
        "categories": {name: {"score": score} for name, score in zip(
            lighthouse.CATEGORIES, (0.99, 1, 1, 0.9), strict=True)},
    }
    row = lighthouse.summary("lobby", report)
    assert row["scores"] == {"performance": 99, "accessibility": 100, "best-practices": 100,
                             "seo": 90}
    assert row["bytes"] == 41534
    assert row["metrics"]["CLS"] == "cumulative-layout-shift value"
    assert row["not passed"] == ["unminified-javascript (Potential savings of 3 KiB)"]
