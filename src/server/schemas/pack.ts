import { z } from '@hono/zod-openapi';
import { SETTING_SOURCES, SETTING_TYPES } from '../../core/pack/settings.js';
import { LAYOUTS } from '../../layouts/registry.js';
import { DiagnosticSchema, SettingValue } from './common.js';

// What the pack holds: roles, fleet, settings and inputs, an agent's config.

export const RolesSchema = z
  .object({
    version: z.string(),
    roles: z.array(
      z.object({
        id: z.string(),
        name: z.string().optional(),
        description: z.string().optional(),
        tags: z.array(z.string()).optional(),
      }),
    ),
  })
  .openapi('Roles');

export const FleetSchema = z
  .object({
    version: z.string(),
    agents: z.array(z.object({ id: z.string(), role: z.string().nullable(), team: z.string().nullable() })),
  })
  .openapi('Fleet');

export const SettingsListSchema = z
  .object({
    version: z.string(),
    settings: z.array(
      z.object({
        name: z.string(),
        type: z.enum(SETTING_TYPES),
        default: SettingValue,
        env: z.string().nullable(),
        values: z.array(z.string()).nullable(),
        description: z.string().nullable(),
        value: SettingValue.openapi({ description: 'The value in effect (env over default)' }),
        source: z.enum(SETTING_SOURCES),
      }),
    ),
    inputs: z
      .array(
        z.object({
          name: z.string(),
          type: z.enum(['boolean', 'enum', 'string', 'integer']),
          default: SettingValue.nullable(),
          values: z.array(z.string()).nullable(),
          description: z.string().nullable(),
          required: z.boolean().openapi({ description: 'A compose that uses it fails without a value' }),
          format: z
            .enum([...LAYOUTS.formats.keys()] as [string, ...string[]])
            .nullable()
            .openapi({
              description:
                '`python`: a value that is no string is written as Python str() writes it (True, None, lists, mappings), and `vars` may hold any JSON value for it; null: as JSON writes it',
            }),
        }),
      )
      .openapi({ description: 'Request inputs (query var.KEY, body vars): declared, or used by the pack' }),
  })
  .openapi('Settings');

export const AgentConfigSchema = z
  .object({
    version: z.string(),
    agent: z.string().optional(),
    role: z.string().optional(),
    team: z.string().optional(),
    config: z.record(z.string(), z.any()).openapi({
      description: 'model, models, capabilities, expertise, max_tasks, temperature, … and any other key',
    }),
    sources: z.record(
      z.string(),
      z.object({
        from: z.enum(['agent_defaults', 'role', 'agent']),
        file: z.string().optional(),
        via: z.literal('models[0]').optional(),
      }),
    ),
    diagnostics: z.array(DiagnosticSchema).optional().openapi({
      description: 'Warnings: UNKNOWN_AGENT for an agent outside the fleet (the config is the role’s alone)',
    }),
  })
  .openapi('AgentConfig');
