"""analyze.py: not built yet (see the open issue for it). It does nothing rather than pretend to work."""
import sys

if __name__ == "__main__":
    sys.exit("analyze.py is not built yet; see the project's open issues.")
