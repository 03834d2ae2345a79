"""`rewards prepare`: turn a dataset (hub id, local file or folder) into verl train/test parquet files."""

from __future__ import annotations

import json
import sys

from .errors import CommandError, NoRows
from .plugins import add_import_flag


def register(sub) -> None:
    from datasources import FAMILIES
    from datasources.table import EXTRACTORS
    from datasources.templates import ANSWER_FORMATS, SYSTEM_PROMPTS, TEMPLATES

    p = sub.add_parser(
        "prepare", help="turn a dataset into verl train.parquet / test.parquet",
        description="Load SOURCE (a hub id such as openai/gsm8k, a family name, a local json/jsonl/"
                    "parquet/csv file, a hub-layout folder or a save_to_disk folder) and write "
                    "FOLDER/train.parquet, FOLDER/test.parquet and FOLDER/manifest.json in verl's row format. "
                    "Rows are labelled with the data set's hub id; a local file whose columns fit more "
                    "than one data set gets its own file name (or --data-source).")
    p.add_argument("source", help="hub id, family name, or local file/folder")
    p.add_argument("-o", "--output", "--out", dest="out", required=True, metavar="FOLDER",
                   help="output folder (--out is the older spelling); files an earlier run wrote there "
                        "(listed in its manifest.json) are replaced")
    p.add_argument("--family", choices=[*FAMILIES, "table"],
                   help="dataset family (default: from the hub id, the path, or the columns)")
    p.add_argument("--config", help="dataset config (default: the family's, e.g. gsm8k's `main`)")
    p.add_argument("--split", help="prepare only this source split (train → train.parquet, any other → test.parquet)")
    p.add_argument("--test-size", type=float,
                   help="carve a test set from the train rows: a count (≥1) or a fraction (<1)")
    p.add_argument("--template", choices=list(TEMPLATES),
                   help="prompt template (default: the family's): "
                        + "; ".join(f"{t.name}: {t.description}" for t in TEMPLATES.values()))
    p.add_argument("--system", help=f"system prompt: {' or '.join(SYSTEM_PROMPTS)}, or literal text")
    p.add_argument("--limit", type=int, help="at most this many rows per split (after shuffling)")
    p.add_argument("--seed", type=int, help="shuffle each split with this seed before --limit")
    p.add_argument("--data-source", help="data_source for the rows (default: the hub id; e.g. lighteval/MATH "
                                         "to relabel X-R1-750 for verl's built-in scorer)")
    p.add_argument("--ability", default="math", help="the rows' `ability` label (default: math)")
    p.add_argument("--allow-unregistered", action="store_true",
                   help="write rows whose data_source no scorer is registered for")
    add_import_flag(p)
    t = p.add_argument_group("any table (--family table)")
    t.add_argument("--question-field", help="column holding the question")
    t.add_argument("--answer-field", help="column holding the answer or worked solution")
    t.add_argument("--answer-extractor", choices=list(EXTRACTORS), default="raw",
                   help="how the gold is read from the answer column (default: raw)")
    t.add_argument("--answer-format", choices=list(ANSWER_FORMATS), default="boxed",
                   help="answer form the r1 template asks for (default: boxed)")
    t.add_argument("--keep", nargs="*", default=[], metavar="FIELD", help="columns copied into extra_info")
    p.add_argument("--json", action="store_true", help="print the manifest as JSON")
    p.add_argument("--dedupe", action="store_true",
                   help="drop rows whose prompt and gold repeat an earlier row's, and test rows that are also in "
                        "train (the count is printed either way)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args) -> int:
    from datasources.pipeline import PrepareError, PrepareOptions, prepare
    from datasources.templates import TemplateError

    opts = PrepareOptions(
        source=args.source, out=args.out, family=args.family, config=args.config, split=args.split,
        template=args.template, system=args.system, limit=args.limit, seed=args.seed,
        test_size=args.test_size, data_source=args.data_source, ability=args.ability,
        allow_unregistered=args.allow_unregistered, question_field=args.question_field,
        answer_field=args.answer_field, answer_extractor=args.answer_extractor,
        answer_format=args.answer_format, keep=tuple(args.keep), dedupe=args.dedupe)
    quiet = args.quiet or not sys.stderr.isatty()  # bars only on a terminal, as the other commands
    if quiet:
        from datasets.utils.logging import disable_progress_bar

        disable_progress_bar()
    try:
        manifest = prepare(opts, progress=None if quiet else _progress_bar)
    except (PrepareError, TemplateError) as exc:
        from datasources.loading import EmptySource

        raise (NoRows if isinstance(exc.__cause__, EmptySource) else CommandError)(str(exc)) from exc
    if args.json:
        print(json.dumps(manifest, indent=2, ensure_ascii=False))
        return 0
    print(f"{manifest['source']} ({manifest['family']}, data_source {manifest['data_source']}, "
          f"template {manifest['template']}) → {args.out}")
    for name, info in manifest["files"].items():
        skipped = f", {info['skipped']} skipped" if info["skipped"] else ""
        print(f"  {name}: {info['rows']} rows from split {info['source_split']!r}{skipped}")
    for skip in manifest["skipped_rows"][:5]:
        print(f"  skipped {skip['source_split']} row {skip['source_index']}: {skip['reason']}", file=sys.stderr)
    if manifest["skipped"] > 5:
        print(f"  ... {manifest['skipped'] - 5} more skipped rows listed in manifest.json", file=sys.stderr)
    for flag in manifest["flagged_rows"][:5]:
        print(f"  flagged {flag['source_split']} row {flag['source_index']}: {flag['reason']}", file=sys.stderr)
    if manifest["flagged"] > 5:
        print(f"  ... {manifest['flagged'] - 5} more flagged rows listed in manifest.json", file=sys.stderr)
    print(_repeat_line(manifest))
    print(f"  content sha256 {manifest['content_sha256'][:16]}…")
    return 0


def _repeat_line(manifest) -> str:
    """How many rows repeat another's prompt and gold, and what was done with them."""
    repeats = manifest["repeats"]
    parts = [f"{n} in {name}" for name, n in repeats.items() if name != "test_in_train"]
    if repeats.get("test_in_train") is not None:
        parts.append(f"{repeats['test_in_train']} test rows also in train")
    total = sum(repeats.values())
    if not total:
        return "  repeated prompts: none"
    done = "dropped (--dedupe)" if manifest["deduped"] else "kept: --dedupe drops them"
    return f"  repeated prompts (same prompt and gold as an earlier row): {', '.join(parts)}; {done}"


def _progress_bar(total: int, desc: str):
    from tqdm import tqdm

    bar = tqdm(total=total, desc=desc, unit="row", leave=False, file=sys.stderr, mininterval=0.2)

    def update(n: int) -> None:
        bar.update(n)
        if bar.n >= total:
            bar.close()

    return update
