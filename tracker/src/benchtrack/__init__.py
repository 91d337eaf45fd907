"""benchtrack: continuous performance-regression tracking.

Data flows one way: harness output -> ingest -> result documents ->
(history | gate | detect) -> (report | site).
"""

__version__ = "0.1.0"
