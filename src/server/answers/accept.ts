/**
 * Proactive negotiation of a response's media type from an `Accept` header (RFC 9110
 * §12.5.1): each offered type takes the quality of the most specific media range that
 * matches it (`text/plain` over `text/*` over `*\/*`; media types compared without regard
 * to case), a quality of 0 means "not acceptable", and the offered type with the highest
 * quality wins; a tie goes to the type whose range comes first in the header, then to the
 * first offered. Undefined when the header lists no offered type as acceptable (the
 * answer is then 406); no header, or one with no media range that parses, accepts the
 * first offered type.
 *
 * @example
 * negotiate('text/plain;q=0, application/json', ['application/json', 'text/plain']); // 'application/json'
 * negotiate('text/*', ['application/json', 'text/plain']);                            // 'text/plain'
 * negotiate('image/png', ['application/json', 'text/plain']);                         // undefined
 */
export function negotiate<T extends string>(
  accept: string | undefined,
  offered: readonly T[],
): T | undefined {
  if (accept === undefined) return offered[0];
  // Nearly every request of a client sends the same header: the last answer is kept.
  if (accept === last.accept && offered === last.offered) return last.type as T | undefined;
  const type = choose(accept, offered);
  last.accept = accept;
  last.offered = offered;
  last.type = type;
  return type;
}

// --- internal ---

const last: { accept?: string; offered?: readonly string[]; type?: string } = {};

function choose<T extends string>(accept: string, offered: readonly T[]): T | undefined {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return offered[0];
  let best: { type: T; q: number; at: number } | undefined;
  for (const type of offered) {
    const match = bestRange(ranges, type);
    if (match === undefined || match.q === 0) continue;
    if (best === undefined || match.q > best.q || (match.q === best.q && match.at < best.at))
      best = { type, q: match.q, at: match.at };
  }
  return best?.type;
}

interface Range {
  type: string;
  subtype: string;
  q: number;
  /** Position in the header. */
  at: number;
}

/** The media ranges of an `Accept` header; ranges that do not parse are left out. */
function parseAccept(accept: string): Range[] {
  const ranges: Range[] = [];
  for (const [at, part] of accept.split(',').entries()) {
    const [range = '', ...params] = part.split(';');
    const m = /^\s*([a-z0-9!#$%&'*+.^_`|~-]+)\/([a-z0-9!#$%&'*+.^_`|~-]+)\s*$/i.exec(range);
    if (!m) continue;
    const type = m[1]!.toLowerCase();
    const subtype = m[2]!.toLowerCase();
    if (type === '*' && subtype !== '*') continue;
    let q = 1;
    for (const param of params) {
      const qm = /^\s*q\s*=(.*)$/i.exec(param);
      if (!qm) continue;
      const weight = qm[1]!.trim();
      // A weight that is no qvalue (outside 0..1, not a number) is not one: the range is
      // left out rather than guessed at.
      q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(weight) ? Number(weight) : Number.NaN;
    }
    if (Number.isNaN(q)) continue;
    ranges.push({ type, subtype, q, at });
  }
  return ranges;
}

/** The most specific range matching `offered` (`type/subtype`, lower case), if any. */
function bestRange(ranges: readonly Range[], offered: string): Range | undefined {
  const [type, subtype] = offered.toLowerCase().split('/') as [string, string];
  let best: Range | undefined;
  let bestRank = -1;
  for (const r of ranges) {
    const rank =
      r.type === type && r.subtype === subtype
        ? 2
        : r.type === type && r.subtype === '*'
          ? 1
          : r.type === '*' && r.subtype === '*'
            ? 0
            : -1;
    if (rank > bestRank) {
      best = r;
      bestRank = rank;
    }
  }
  return best;
}
