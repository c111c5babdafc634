"""A batch converted on a Dask cluster (docs/scale.md "Dask"): the plan made once, here, as
`rigport batch` makes it; one task per model on the workers, each converting it as the local batch
does (rigport._rigport._batch_run); the records gathered in plan order into the dict batch()
returns. A worker that dies has its tasks run again elsewhere by the scheduler."""
import uuid

from . import _rigport

# Runs of a task that raised (a worker's own trouble, not a model's: a model's failure is in its
# record) before the batch gives up; a task lost with a dead worker is rescheduled by Dask itself,
# up to its distributed.scheduler.allowed-failures.
TASK_RETRIES = 2


def convert_share(plan, indices, out_dir, format, follow_links, report_file, keywords):
    """On a worker: the plan's jobs at indices, converted as the local batch converts them."""
    from rigport import _rigport as compiled  # imported by the worker's own process
    return compiled._batch_run(plan, indices, out_dir, format, follow_links=follow_links, report_file=report_file, **keywords)


FAILURE_RANK = {None: 0, "read": 1, "unsupported": 2, "write": 3}


def batch_on_cluster(client, inputs, out_dir, format, *, follow_links=False, report_file=None, progress=None, **keywords):
    """batch(inputs, out_dir, format, client=client, ...): the same dict as the local batch.
    progress(job, record, done, total), if given, hears each model as it finishes (in any order):
    job is the plan's {'input', 'companions', 'output', 'refused'}."""
    import os

    from dask.distributed import as_completed

    out_dir = os.fspath(out_dir)
    plan = _rigport._batch_plan(inputs, out_dir, format, follow_links=follow_links, report_file=report_file, **keywords)
    total = len(plan["jobs"])
    if total == 0:
        raise ValueError("no models to convert")  # plan_batch refuses an empty plan first; kept for safety
    token = uuid.uuid4().hex
    # The plan goes to the cluster once, to every worker (so a worker that dies takes no only copy
    # with it); each task names it.
    [plan_future] = client.scatter([plan], broadcast=True, hash=False)
    futures = [
        client.submit(convert_share, plan_future, [i], out_dir, plan["format"], follow_links, report_file, keywords,
                      key=f"rigport-{token}-{i}", pure=False, retries=TASK_RETRIES)
        for i in range(total)
    ]
    records = [None] * total
    failures = [None] * total
    warnings = 0
    done = 0
    for future in as_completed(futures):
        for index, record, failure, count in future.result():
            record["failure"] = failure
            records[index] = record
            failures[index] = failure
            warnings += count
            done += 1
            if progress:
                progress(plan["jobs"][index], record, done, total)
    # The workers' stores sweep the cache only now and then: down to its limit once, here.
    if keywords.get("cache") and keywords.get("cache_max"):
        _rigport._cache_trim(keywords["cache"], keywords["cache_max"])
    worst = max(failures, key=lambda f: FAILURE_RANK[f])
    return {
        "models": records,
        "skipped": plan["skipped"],
        "claimed": plan["claimed"],
        "converted": sum(1 for r in records if r["status"] == "converted"),
        "failed": sum(1 for r in records if r["status"] != "converted"),
        "warnings": warnings,
        "failure": worst,
    }
