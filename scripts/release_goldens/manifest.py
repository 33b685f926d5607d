"""Writes a release-assets manifest (python/cogsim/release_assets/): the SHA-256 and size of each
file a benchmark's pictures need, read from a checkout or unpacked archive of the pinned commit.

    python scripts/release_goldens/manifest.py rngbench DIR/RNGBench python/cogsim/benchmarks/rngbench/release_assets.json

The folders listed per benchmark below are the ones the pictures load from; only hashes and sizes are
written (the images themselves stay in the user's copy of the release).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

RELEASES = {
    "rngbench": {
        "repository": "InternLM/RNGBench",
        "commit": "f7fdd6eb1a61d3403da00bbd1a90f7eb5b50b8b9",
        # The card themes Matching Pairs draws from files (env/card_assets.py, CardAssets).
        "folders": [
            "1_matching_pairs_new/assets/poker",
            "1_matching_pairs_new/assets/noise",
            "1_matching_pairs_new/assets/textures",
            "1_matching_pairs_new/assets/abstract",
            "1_matching_pairs_new/assets/similar_colors",
        ],
        "suffixes": (".png", ".jpg", ".jpeg", ".bmp", ".webp"),
    },
}


def manifest(benchmark: str, checkout: Path) -> dict:
    release = RELEASES[benchmark]
    files = {}
    for folder in release["folders"]:
        for path in sorted((checkout / folder).iterdir()):
            if path.suffix.lower() in release["suffixes"] and path.is_file():
                data = path.read_bytes()
                files[f"{folder}/{path.name}"] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    return {
        "benchmark": benchmark,
        "repository": release["repository"],
        "commit": release["commit"],
        "archive_url": f"https://github.com/{release['repository']}/archive/{release['commit']}.tar.gz",
        "files": files,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmark", choices=sorted(RELEASES))
    parser.add_argument("checkout", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    data = manifest(args.benchmark, args.checkout)
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(data['files'])} files")


if __name__ == "__main__":
    main()
