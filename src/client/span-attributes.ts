// Which prompt an LLM call used, as attributes of the caller's own OpenTelemetry span.
// Plain data (no tracing package here): `span.setAttributes(promptSpanAttributes(prompt))`
// with whatever span API the caller uses.

/** The attribute names strata's spans carry, and that {@link promptSpanAttributes} gives. */
export const PROMPT_SPAN_ATTRIBUTES = {
  version: 'strata.prompt.version',
  sha256: 'strata.prompt.sha256',
  role: 'strata.prompt.role',
  team: 'strata.prompt.team',
  agent: 'strata.prompt.agent',
  layout: 'strata.prompt.layout',
} as const;

/** What a prompt says about itself: a client prompt, a runtime prompt, a compose result. */
export interface PromptIdentity {
  version?: string;
  sha256?: string;
  role?: string;
  team?: string;
  agent?: string;
  /** The layout (preset) the pack was read with. */
  layout?: string;
}

/**
 * The prompt's version, sha256, role, team, agent and layout as span attributes
 * (`strata.prompt.version`, …), leaving out what the prompt does not say. Put them on the
 * span of the LLM call that sends the prompt, so a trace shows which prompt version each
 * call used.
 *
 * @example
 * const prompt = await prompts.get();
 * span.setAttributes(promptSpanAttributes(prompt));
 * // { 'strata.prompt.version': '469f92cce996af63', 'strata.prompt.sha256': '2ce5…', … }
 */
export function promptSpanAttributes(prompt: PromptIdentity): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, name] of Object.entries(PROMPT_SPAN_ATTRIBUTES)) {
    const value = prompt[key as keyof PromptIdentity];
    if (typeof value === 'string' && value !== '') out[name] = value;
  }
  return out;
}
