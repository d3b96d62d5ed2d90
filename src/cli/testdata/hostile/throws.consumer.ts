/** A `--consumer` module that throws while it loads (used by the tests). */
throw new Error('no licence key in the environment');
