/** The package version, reported by `strata --version` and the service. */
export const VERSION = '0.1.0';
