import { budgetDiagnostics, type ComposedMembers, cacheOrderDiagnostics } from '../../tokens/checks.js';
import type { LintCheck, LintContext } from './lint-check.js';

/** `checkBudgets` as a `strata validate` check, over the members validate composed. */
export const tokenBudgets: LintCheck = (ctx) =>
  ctx.snapshot ? budgetDiagnostics(ctx.snapshot, composedOf(ctx.members)) : [];

/** `checkCacheOrder` as a `strata validate` check. */
export const cacheOrder: LintCheck = (ctx) =>
  ctx.snapshot ? cacheOrderDiagnostics(ctx.snapshot, composedOf(ctx.members)) : [];

// --- internal ---

function composedOf(members: LintContext['members']): ComposedMembers {
  return members.flatMap(({ member, outcome }) => (outcome.ok ? [{ member, result: outcome.result }] : []));
}
