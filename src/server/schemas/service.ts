import { z } from '@hono/zod-openapi';
import { DiagnosticSchema } from './common.js';

// How the service is doing: status, reloads (and held versions), liveness, readiness.

export const ChangesSchema = z
  .object({ agents: z.array(z.string()), roles: z.array(z.string()) })
  .openapi('Changes');

export const DegradationSchema = z
  .object({
    members: z.array(
      z.object({
        member: z.string(),
        label: z.string(),
        agent: z.string().optional(),
        role: z.string().optional(),
        removed: z.boolean(),
        fallback: z.boolean(),
        failing: z.array(z.string()).optional(),
        lost: z.array(
          z.object({
            layer: z.string(),
            was: z.string().optional(),
            reason: z.enum(['missing', 'empty', 'gated', 'no-value', 'removed']),
            looked: z.string().optional(),
          }),
        ),
      }),
    ),
    layers: z.array(z.string()),
  })
  .openapi('Degradation', {
    description:
      'What a new version would take away: members that would lose layers, get the fallback text, fail, or disappear',
  });

export const HeldSchema = z
  .object({
    version: z.string().openapi({ description: 'The version held back (not served)' }),
    at: z.string(),
    trigger: z.string(),
    members: DegradationSchema.shape.members,
    layers: z.array(z.string()),
    diagnostics: z.array(DiagnosticSchema),
  })
  .openapi('Held');

export const ReloadBodySchema = z
  .object({
    accept: z
      .union([z.literal(true), z.string().min(1).max(64)])
      .optional()
      .openapi({
        description:
          'Serve the new version even though it degrades members: `true`, or the held version id from /api/status (safer: a pack that changed again is held anew)',
      }),
  })
  .openapi('ReloadBody');

export const StatusSchema = z
  .object({
    ready: z.boolean(),
    version: z.string().nullable(),
    previous: z.string().nullable(),
    preset: z.string().nullable(),
    loadedAt: z.string().nullable(),
    lastReloadAt: z.string().nullable(),
    lastReloadRead: z.enum(['hinted', 'full']).nullable().openapi({
      description:
        'How the last reload read the pack: `hinted` (only the paths file events named, on top of the last complete read) or `full`',
    }),
    lastError: z
      .object({ at: z.string(), trigger: z.string(), diagnostics: z.array(DiagnosticSchema) })
      .nullable(),
    held: HeldSchema.nullable(),
    warnings: z.array(DiagnosticSchema),
    counts: z.object({ files: z.number().int(), roles: z.number().int(), agents: z.number().int() }),
    service: z.object({
      version: z.string(),
      watching: z.boolean(),
      startedAt: z.string(),
      allowLayerLoss: z.boolean(),
    }),
  })
  .openapi('Status');

export const ReloadSchema = z
  .object({
    outcome: z.enum(['swapped', 'unchanged', 'failed', 'held', 'superseded']),
    version: z.string().nullable(),
    previous: z.string().nullable(),
    changed: ChangesSchema,
    diagnostics: z.array(DiagnosticSchema),
    held: z.string().optional().openapi({ description: 'The version held back (outcome `held`)' }),
    accepted: z.boolean().optional(),
    degradation: DegradationSchema.optional(),
  })
  .openapi('Reload');

export const ReloadRefusedSchema = ReloadSchema.extend({
  error: z.object({ code: z.enum(['RELOAD_FAILED', 'RELOAD_HELD']), message: z.string() }),
}).openapi('ReloadRefused');

export const HealthSchema = z.object({ ok: z.literal(true) }).openapi('Health');

export const ReadySchema = z
  .object({
    ready: z.boolean(),
    version: z.string().nullable(),
    starting: z.literal(true).optional().openapi({ description: 'Loaded, still warming up' }),
    reasons: z
      .array(DiagnosticSchema)
      .optional()
      .openapi({ description: 'Strict mode: why the pack is not usable' }),
  })
  .openapi('Ready');
