"""Graph algorithms: PageRank."""

from .pagerank import PageRankResult, pagerank

__all__ = ["PageRankResult", "pagerank"]
