"""python3 -m rigport batch INPUT... -o OUT_DIR --format FMT [--scheduler tcp://HOST:PORT] ...

`rigport batch` with its models converted on a Dask cluster (docs/scale.md "Dask"): the same
plan, the same files and bytes, the same --report records and the same summary line
"N converted, M failed, W warnings in T s" on stderr, and the same exit codes (docs/cli.md "Exit
codes"). Without --scheduler the models are converted here, as `rigport batch` converts them."""
import argparse
import json
import os
import sys
import tempfile
import time

import rigport

EXIT_OK, EXIT_USAGE, EXIT_READ, EXIT_UNSUPPORTED, EXIT_WRITE = 0, 1, 2, 3, 4
EXIT_OF_FAILURE = {None: EXIT_OK, "read": EXIT_READ, "unsupported": EXIT_UNSUPPORTED, "write": EXIT_WRITE}
WARNING_LINES = 5  # per model, as `rigport batch` folds them


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):  # a usage error is exit 1, as the CLI's
        raise UsageError(message)


def size_bytes(text):
    """--cache-max: bytes, or with K, M, G or T (in 1024s), as the CLI reads it."""
    shifts = {"": 0, "k": 10, "m": 20, "g": 30, "t": 40}
    number, suffix = (text[:-1], text[-1].lower()) if text and text[-1].isalpha() else (text, "")
    if not number.isdigit() or suffix not in shifts or int(number) == 0:
        raise UsageError(f"--cache-max '{text}': expected a size in bytes above 0, or with K, M, G or T (500M)")
    return int(number) << shifts[suffix]


def parse(argv):
    p = Parser(prog="python3 -m rigport", description="rigport batch on a Dask cluster (docs/scale.md)")
    verbs = p.add_subparsers(dest="verb", required=True, parser_class=Parser)
    b = verbs.add_parser("batch", help="Convert every model in files and folders into one output folder")
    b.add_argument("inputs", nargs="+", metavar="INPUT")
    b.add_argument("-o", "--output", required=True, help="Output folder")
    b.add_argument("--format", required=True, help="Output format name (see 'rigport formats')")
    b.add_argument("--scheduler", help="A Dask scheduler's address, tcp://HOST:PORT; without it the models are converted here")
    b.add_argument("-j", "--jobs", type=int, default=0, help="Without --scheduler: models converted in parallel")
    b.add_argument("--report", help="Write a JSON array with one record per model (written atomically)")
    b.add_argument("-q", "--quiet", action="store_true", help="Print no warnings (errors still print)")
    b.add_argument("--unit", help="Output unit, as rigport batch --unit")
    b.add_argument("--texture-path", action="append", default=[], metavar="DIR", help="As rigport batch --texture-path")
    b.add_argument("--no-companions", action="store_true", help="Every file a model of its own")
    b.add_argument("--follow-links", action="store_true", help="Follow symbolic links out of an INPUT folder")
    b.add_argument("--cache", metavar="DIR", help="The conversion cache (default: $RIGPORT_CACHE); on a shared folder for a cluster")
    b.add_argument("--cache-max", metavar="SIZE", help="Evict the least recently used cache entries beyond SIZE")
    return p.parse_args(argv)


def write_report(path, records):
    """The records as `rigport batch --report` writes them: written whole, then renamed into place."""
    text = json.dumps(records, indent=2, ensure_ascii=False) + "\n"
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".rigport-report-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def model_lines(job, record, quiet):
    lines = []
    if not quiet:
        warnings = [f"Warning: {w['path'] + ': ' if w['path'] else ''}{w['code']}: {w['message']}" for w in record["warnings"]]
        if len(warnings) > WARNING_LINES:
            more = len(warnings) - (WARNING_LINES - 1)
            warnings = warnings[:WARNING_LINES - 1] + [f"Warning: {more} more warnings (--report FILE lists them all)"]
        lines += warnings
    if record["status"] == "converted":
        lines.append(f"ok {job['input']} -> {job['output']}")
    else:
        e = record["error"]
        where = e.get("path") or ""
        lines.append(f"FAILED {where + ': ' if where else ''}{e['message']}" if where == job["input"]
                     else f"FAILED {job['input']}: {where + ': ' if where else ''}{e['message']}")
    return lines


def run_batch(a):
    start = time.monotonic()
    keywords = {"companions": not a.no_companions}
    if a.unit:
        keywords["unit"] = a.unit
    if a.texture_path:
        keywords["texture_path"] = a.texture_path
    cache = a.cache or os.environ.get("RIGPORT_CACHE") or None
    if a.cache_max and not cache:
        raise UsageError("--cache-max limits a cache: give --cache DIR (or set RIGPORT_CACHE)")
    if cache:
        keywords["cache"] = cache
        if a.cache_max:
            keywords["cache_max"] = size_bytes(a.cache_max)

    def progress(job, record, done, total):
        sys.stderr.write("".join(line + "\n" for line in model_lines(job, record, a.quiet)))
        sys.stderr.flush()

    if a.scheduler:
        from dask.distributed import Client

        from rigport.distributed import batch_on_cluster
        with Client(a.scheduler, timeout="30s") as client:
            result = batch_on_cluster(client, a.inputs, a.output, a.format, follow_links=a.follow_links, report_file=a.report,
                                      progress=progress, **keywords)
    else:
        result = rigport.batch(a.inputs, a.output, a.format, jobs=a.jobs, follow_links=a.follow_links, **keywords)
        # The local batch reports when it is done: the lines then, in plan order.
        for record in result["models"]:
            progress({"input": record["input"], "output": (record["outputs"] or [""])[0]}, record, 0, 0)
    for s in result["skipped"]:
        sys.stderr.write(f"skipped {s['path']}: {s['reason']}\n")
    code = EXIT_OF_FAILURE[result["failure"]]
    if a.report:
        records = [{k: v for k, v in r.items() if k != "failure"} for r in result["models"]]
        try:
            write_report(a.report, records)
        except OSError as e:
            sys.stderr.write(f"Error: {a.report}: {e.strerror}\n")
            code = EXIT_WRITE
    cached = sum(1 for r in result["models"] if r.get("cached"))
    from_cache = f" ({cached} from the cache)" if cache else ""
    sys.stderr.write(f"{result['converted']} converted{from_cache}, {result['failed']} failed, {result['warnings']} warnings in "
                     f"{time.monotonic() - start:.2f} s\n")
    return code


def main(argv=None):
    try:
        a = parse(sys.argv[1:] if argv is None else argv)
        return run_batch(a)
    except UsageError as e:
        sys.stderr.write(f"Error: {e}\n")
        return EXIT_USAGE
    except rigport.Error as e:
        sys.stderr.write(f"Error: {e}\n")
        code = getattr(e, "code", "")
        return EXIT_UNSUPPORTED if code == "unsupported" else EXIT_WRITE if code == "write-failed" else EXIT_USAGE
    except ValueError as e:
        sys.stderr.write(f"Error: {e}\n")
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
