"""mkdocs hooks (mkdocs.yml): the site's home page is README.md, and the repository's markdown files
outside docs/ that pages link to are pages too, so every link reads the same on GitHub (paths in the
repository) and in the site (README.md -> index.md, docs/X.md -> X.md)."""
from __future__ import annotations

import os
import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
# repository path -> site path, for the files outside docs/ (the rest of docs/ is the site as it is)
OUTSIDE = {"README.md": "index.md", "bench/RESULTS.md": "bench/RESULTS.md", "envs/gym/README.md": "envs/gym/README.md"}
LINK = re.compile(r"(\]\()([^)\s#]+)")  # a markdown link's target, up to an anchor


def site_path(repo_path: str) -> str:
    return OUTSIDE.get(repo_path) or repo_path.removeprefix("docs/")


def on_files(files, config):
    for repo_path, uri in OUTSIDE.items():
        files.append(File.generated(config, uri, abs_src_path=str(ROOT / repo_path)))
    return files


def on_page_markdown(markdown, page, config, files):
    """A link between repository paths becomes the link between their site paths; links within docs/
    stay as they are, and one to a path that is no page is left for `mkdocs build --strict` to report."""
    uri = page.file.src_uri
    repo = next((r for r, u in OUTSIDE.items() if u == uri), "docs/" + uri)

    def fix(m: re.Match) -> str:
        target = m[2]
        if ":" in target or target.startswith("/"):  # a URL, or absolute
            return m[0]
        dest = os.path.normpath(os.path.join(os.path.dirname(repo), target))
        return m[1] + os.path.relpath(site_path(dest), os.path.dirname(uri) or ".")

    return LINK.sub(fix, markdown)
