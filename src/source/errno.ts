// How a failed file operation reads in a diagnostic: the errno code, and for a permission
// denied (the commonest mistake with a mounted pack) who may not read it and what to do.

/**
 * The reason a file operation failed: its errno code (`ENOENT`, `ELOOP`), or the error's
 * message. `EACCES`/`EPERM` say the user strata runs as and the remedy.
 *
 * @example
 * errnoReason(Object.assign(new Error(), { code: 'EACCES' }));
 * // 'permission denied (EACCES): strata runs as uid 1000, which may not read it; …'
 */
export function errnoReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'EACCES' || err?.code === 'EPERM') {
    const uid = process.getuid?.();
    const who = uid === undefined ? 'the user strata runs as' : `strata runs as uid ${uid}, which`;
    return `permission denied (${err.code}): ${who} may not read it; make it readable (chmod a+r, and a+rx on folders) or run strata as its owner`;
  }
  return err?.code ?? (err instanceof Error ? err.message : String(e));
}

/**
 * Why an entry could not be read: a name that is not UTF-8 (shown with U+FFFD, a name no
 * file has) is said as such; otherwise the system's reason.
 */
export function unreadable(name: string, e: unknown): string {
  const gone = (e as NodeJS.ErrnoException)?.code === 'ENOENT';
  return gone && name.includes('\uFFFD')
    ? 'its name is not valid UTF-8 (strata reads file names as UTF-8): rename it'
    : errnoReason(e);
}

/** Whether the operation failed for want of the file (`ENOENT`): a symlink to nothing. */
export function isNotFound(e: unknown): boolean {
  return (e as NodeJS.ErrnoException)?.code === 'ENOENT';
}
