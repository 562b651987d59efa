import { z } from '@hono/zod-openapi';
import { Name, Settings, Strict, StrictQuery, Vars, Version } from './common.js';
import { ProviderFormatName } from './formats.js';
import { ComposeResultSchema } from './result.js';

// What a prompt request may ask: the GET queries and the compose bodies.

/** The longest `?ambient=` of a GET prompt, in characters, by default (`serve --max-query-ambient`). */
export const MAX_QUERY_AMBIENT = 32 * 1024;
/** The most members of one team compose, by default (`serve --max-team-members`). */
export const MAX_TEAM_MEMBERS = 256;

export const PromptQuerySchema = z.object({
  team: Name.optional(),
  agent: Name.optional(),
  ambient: z
    .string()
    .optional()
    .openapi({
      description: `Ambient text; at most ${MAX_QUERY_AMBIENT} characters by default (\`serve --max-query-ambient\`), else 400 BAD_REQUEST`,
    }),
  version: Version.optional(),
  format: ProviderFormatName.optional(),
  strict: StrictQuery.optional(),
});

export const AgentPromptQuerySchema = PromptQuerySchema.omit({ agent: true }).extend({
  role: Name.optional(),
});

export const ComposeBodySchema = z
  .strictObject({
    role: Name.optional(),
    team: Name.optional(),
    agent: Name.optional(),
    ambient: z.string().optional(),
    settings: Settings.optional(),
    vars: Vars.optional().openapi({
      description: 'Request inputs the pack declares (its `inputs:`), parsed by type like settings',
    }),
    version: Version.optional(),
    format: ProviderFormatName.optional(),
    strict: Strict.optional(),
  })
  .openapi('ComposeRequest');

export const TeamMemberSchema = z
  .strictObject({
    agent: Name,
    role: Name.optional(),
    team: Name.optional(),
    ambient: z.string().optional(),
    settings: Settings.optional(),
    vars: Vars.optional(),
  })
  .openapi('TeamMember');

export const TeamBodySchema = z
  .strictObject({
    team: Name.optional().openapi({ description: 'Default team for members that give none' }),
    settings: Settings.optional().openapi({ description: 'Overrides for every member (a member’s own win)' }),
    vars: Vars.optional().openapi({
      description: 'Request inputs for every member (a member’s own win)',
    }),
    members: z
      .array(TeamMemberSchema)
      .min(1)
      .openapi({
        description: `At most ${MAX_TEAM_MEMBERS} by default (\`serve --max-team-members\`), else 400 BAD_REQUEST`,
      }),
    strict: Strict.optional(),
  })
  .openapi('TeamComposeRequest');

export const TeamResultSchema = z
  .object({
    version: z.string(),
    results: z.array(ComposeResultSchema),
  })
  .openapi('TeamComposeResult');

export type ComposeBody = z.infer<typeof ComposeBodySchema>;
export type TeamBody = z.infer<typeof TeamBodySchema>;
export type PromptQuery = z.infer<typeof PromptQuerySchema>;
