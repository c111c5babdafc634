"""rigport: read, validate, convert and write game model formats (docs/python.md).

The compiled module rigport._rigport holds the library's functions; this package re-exports them,
and adds batch(..., client=) to convert a batch on a Dask cluster (docs/scale.md "Dask")."""
from . import _rigport
from ._rigport import *  # noqa: F401,F403 (the module's public names, as before it was a package)
from ._rigport import __version__  # noqa: F401

__doc__ = _rigport.__doc__


def batch(inputs, out_dir, format, *, jobs=0, follow_links=False, client=None, **keywords):
    if client is None:
        return _rigport.batch(inputs, out_dir, format, jobs=jobs, follow_links=follow_links, **keywords)
    from .distributed import batch_on_cluster  # noqa: E402 (dask is imported only when asked for)
    return batch_on_cluster(client, inputs, out_dir, format, follow_links=follow_links, **keywords)


batch.__doc__ = (_rigport.batch.__doc__ or "") + (
    "\n\nclient=dask.distributed.Client(...): the plan is made here, once, and the models are converted on the "
    "cluster's workers (each imports rigport; inputs, outputs and the cache on a shared filesystem); the result is "
    "the same dict, the files the same bytes (docs/scale.md). jobs is then the workers' business.")
