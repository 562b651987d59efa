import { isTruthy, type SettingValue } from './settings.js';

/** Conditions on layers and variants (docs/pack-format.md, "Gates"). */
export type Gate =
  | { setting: string; equals?: SettingValue | SettingValue[] }
  | { role: string[] }
  | { team: string[] }
  | { agent: string[] }
  | { all: Gate[] }
  | { any: Gate[] }
  | { not: Gate };

export interface GateContext {
  settings: Readonly<Record<string, SettingValue>>;
  role?: string;
  team?: string;
  agent?: string;
}

export function evaluateGate(gate: Gate, ctx: GateContext): boolean {
  if ('setting' in gate) {
    const value = ctx.settings[gate.setting];
    if (gate.equals === undefined) return isTruthy(value);
    const wanted = Array.isArray(gate.equals) ? gate.equals : [gate.equals];
    return wanted.some((w) => w === value);
  }
  if ('role' in gate) return ctx.role !== undefined && gate.role.includes(ctx.role);
  if ('team' in gate) return ctx.team !== undefined && gate.team.includes(ctx.team);
  if ('agent' in gate) return ctx.agent !== undefined && gate.agent.includes(ctx.agent);
  if ('all' in gate) return gate.all.every((g) => evaluateGate(g, ctx));
  if ('any' in gate) return gate.any.some((g) => evaluateGate(g, ctx));
  return !evaluateGate(gate.not, ctx);
}

/** A short readable form of a gate, used as the reason of a `gated` layer. */
export function describeGate(gate: Gate): string {
  if ('setting' in gate) {
    if (gate.equals === undefined) return gate.setting;
    const wanted = Array.isArray(gate.equals) ? gate.equals : [gate.equals];
    return wanted.length === 1
      ? `${gate.setting} == ${String(wanted[0])}`
      : `${gate.setting} in [${wanted.join(', ')}]`;
  }
  if ('role' in gate) return `role in [${gate.role.join(', ')}]`;
  if ('team' in gate) return `team in [${gate.team.join(', ')}]`;
  if ('agent' in gate) return `agent in [${gate.agent.join(', ')}]`;
  if ('all' in gate) return `all(${gate.all.map(describeGate).join(', ')})`;
  if ('any' in gate) return `any(${gate.any.map(describeGate).join(', ')})`;
  return `not(${describeGate(gate.not)})`;
}

/** Every setting a gate reads, to check them against the manifest at load. */
export function gateSettings(gate: Gate): string[] {
  if ('setting' in gate) return [gate.setting];
  if ('all' in gate) return gate.all.flatMap(gateSettings);
  if ('any' in gate) return gate.any.flatMap(gateSettings);
  if ('not' in gate) return gateSettings(gate.not);
  return [];
}
