// A line diff of two prompts as rows to draw, unified or side by side. Pure: the diff
// library (jsdiff, the `Diff` global of /vendor/diff.js) is passed in.

/**
 * The hunks of a line diff from `oldText` to `newText`, each row
 * `{ kind: 'ctx'|'del'|'add', old?, new?, text, parts? }` where `parts` marks the changed
 * words of a line that was edited (`[{ text, changed }]`).
 */
export function diffHunks(Diff, oldText, newText, context = 3) {
  // Both texts get a final newline so the last line is not reported as changed. The search
  // for a shortest diff is bounded (it costs lines × edits: two rewritten long prompts
  // would hold the page for minutes); past the bound, every old line is replaced.
  const patch =
    Diff.structuredPatch('a', 'b', `${oldText}\n`, `${newText}\n`, '', '', {
      context,
      maxEditLength: MAX_LINE_EDITS,
    }) ?? wholeReplacement(oldText, newText);
  let added = 0;
  let removed = 0;
  const hunks = patch.hunks.map((hunk) => {
    const rows = [];
    let o = hunk.oldStart;
    let n = hunk.newStart;
    for (const line of hunk.lines) {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === ' ') rows.push({ kind: 'ctx', old: o++, new: n++, text });
      else if (mark === '-') {
        rows.push({ kind: 'del', old: o++, text });
        removed++;
      } else if (mark === '+') {
        rows.push({ kind: 'add', new: n++, text });
        added++;
      }
    }
    markWords(Diff, rows);
    const header = `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
    return { header, rows };
  });
  return { hunks, added, removed };
}

/** The rows of a hunk paired for a side-by-side view: `[{ left?, right? }]`. */
export function sideBySide(rows) {
  const pairs = [];
  let i = 0;
  while (i < rows.length) {
    const row = rows[i];
    if (row.kind === 'ctx') {
      pairs.push({ left: row, right: row });
      i++;
      continue;
    }
    const dels = [];
    const adds = [];
    while (i < rows.length && rows[i].kind === 'del') dels.push(rows[i++]);
    while (i < rows.length && rows[i].kind === 'add') adds.push(rows[i++]);
    for (let k = 0; k < Math.max(dels.length, adds.length); k++)
      pairs.push({ left: dels[k], right: adds[k] });
  }
  return pairs;
}

/** The unified diff as plain text (`--- a`, `+++ b`, hunks), for copying. */
export function unifiedText(diff, oldName, newName) {
  const lines = [`--- ${oldName}`, `+++ ${newName}`];
  for (const hunk of diff.hunks) {
    lines.push(hunk.header);
    for (const row of hunk.rows)
      lines.push(`${row.kind === 'add' ? '+' : row.kind === 'del' ? '-' : ' '}${row.text}`);
  }
  return `${lines.join('\n')}\n`;
}

// --- internal ---

/** Line edits (removed plus added) a diff looks for, as `strata diff` (MAX_DIFF_EDITS). */
const MAX_LINE_EDITS = 2000;
/** Word edits the marking of one edited line looks for; past it the line is shown replaced whole. */
const MAX_WORD_EDITS = 200;

/** A patch of one hunk replacing every line of `oldText` by every line of `newText`. */
function wholeReplacement(oldText, newText) {
  const removed = oldText === '' ? [] : oldText.split('\n');
  const added = newText === '' ? [] : newText.split('\n');
  const lines = [...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`)];
  const start = (n) => (n === 0 ? 0 : 1);
  return {
    hunks: [
      {
        oldStart: start(removed.length),
        oldLines: removed.length,
        newStart: start(added.length),
        newLines: added.length,
        lines,
      },
    ],
  };
}

/** Pairs each run of removed lines with the added lines after it and marks changed words. */
function markWords(Diff, rows) {
  let i = 0;
  while (i < rows.length) {
    if (rows[i].kind !== 'del') {
      i++;
      continue;
    }
    const dels = [];
    const adds = [];
    while (i < rows.length && rows[i].kind === 'del') dels.push(rows[i++]);
    while (i < rows.length && rows[i].kind === 'add') adds.push(rows[i++]);
    for (let k = 0; k < Math.min(dels.length, adds.length); k++) {
      const changes = Diff.diffWordsWithSpace(dels[k].text, adds[k].text, { maxEditLength: MAX_WORD_EDITS });
      if (changes === undefined) continue;
      // Lines that share little are shown as replaced whole, not as a confetti of words.
      const kept = changes.filter((c) => !c.added && !c.removed).reduce((n, c) => n + c.value.length, 0);
      if (kept < 0.4 * Math.max(dels[k].text.length, adds[k].text.length)) continue;
      dels[k].parts = changes
        .filter((c) => !c.added)
        .map((c) => ({ text: c.value, changed: Boolean(c.removed) }));
      adds[k].parts = changes
        .filter((c) => !c.removed)
        .map((c) => ({ text: c.value, changed: Boolean(c.added) }));
    }
  }
}
