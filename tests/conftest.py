"""Tests never use the network: hub ids are looked up in the local cache only (an uncached one is a
one-line config error at once, instead of a 3 s reachability probe per config load)."""
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
