/** A `--provider` module that fails while loading (used by the CLI tests). */
throw new Error('cannot reach the build server');
