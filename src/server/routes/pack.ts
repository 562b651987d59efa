import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { listInputs } from '../../core/pack/inputs.js';
import { error } from '../../core/text/diagnostics.js';
import { closestNames, didYouMean } from '../../core/text/suggest.js';
import { packProblems } from '../../engine/default-engine.js';
import { VERSION } from '../../source/version.js';
import { agentConfig } from '../../tooling/agent-config/agent-config.js';
import { snapshotOf } from '../middleware/snapshot.js';
import { AgentConfigSchema, FleetSchema, RolesSchema, SettingsListSchema } from '../schemas/pack.js';
import { StatusSchema } from '../schemas/service.js';
import type { AppEnv, Service } from '../service/context.js';
import { diagnosticsResponse, errorResponse } from '../service/errors.js';
import { addRoute, errors, json } from './route.js';

/**
 * What the pack holds and how the service is doing: `GET /api/roles`, `/api/fleet`,
 * `/api/settings`, `/api/agents/{agent}/config`, `/api/status`.
 */
export function addPackRoutes(app: OpenAPIHono<AppEnv>, service: Service): void {
  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/roles',
      operationId: 'listRoles',
      tags: ['pack'],
      summary: 'The roles of the registry',
      responses: { 200: json(RolesSchema, 'Role ids with name, description and tags'), ...errors(503) },
    }),
    (c) => {
      const snapshot = snapshotOf(c, service);
      if (snapshot instanceof Response) return snapshot;
      const roles = [...snapshot.roles.values()].map((r) => {
        const out: { id: string; name?: string; description?: string; tags?: string[] } = { id: r.id };
        if (r.name !== undefined) out.name = r.name;
        if (r.description !== undefined) out.description = r.description;
        if (r.tags !== undefined) out.tags = r.tags;
        return out;
      });
      return c.json({ version: snapshot.version, roles });
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/fleet',
      operationId: 'getFleet',
      tags: ['pack'],
      summary: 'The agents the pack serves',
      responses: { 200: json(FleetSchema, 'Agents with their role and team'), ...errors(503) },
    }),
    (c) => {
      const snapshot = snapshotOf(c, service);
      if (snapshot instanceof Response) return snapshot;
      const agents = snapshot.fleet.map((a) => ({ id: a.id, role: a.role ?? null, team: a.team ?? null }));
      return c.json({ version: snapshot.version, agents });
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/settings',
      operationId: 'listSettings',
      tags: ['pack'],
      summary: 'The settings of the pack, with the value in effect and where it comes from',
      responses: { 200: json(SettingsListSchema, 'Setting definitions and values'), ...errors(503) },
    }),
    (c) => {
      const snapshot = snapshotOf(c, service);
      if (snapshot instanceof Response) return snapshot;
      const settings = snapshot.manifest.settings.map((s) => ({
        name: s.name,
        type: s.type,
        default: s.default,
        env: s.env ?? null,
        values: s.values ?? null,
        description: s.description ?? null,
        value: snapshot.settings.values[s.name] ?? s.default,
        source: snapshot.settings.sources[s.name] ?? 'default',
      }));
      const inputs = listInputs(snapshot).map((i) => ({
        name: i.name,
        type: i.type,
        default: i.default ?? null,
        values: i.values ?? null,
        description: i.description ?? null,
        required: i.required,
        format: i.format ?? null,
      }));
      return c.json({ version: snapshot.version, settings, inputs });
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/agents/{agent}/config',
      operationId: 'getAgentConfig',
      tags: ['pack'],
      summary: "An agent's config with its role's model and capability overrides applied",
      request: {
        params: z.object({ agent: z.string() }),
        query: z.object({ role: z.string().min(1).optional() }),
      },
      responses: {
        200: json(AgentConfigSchema, 'The merged config and where each field came from'),
        ...errors(400, 404, 500, 503),
      },
    }),
    (c) => {
      const snapshot = snapshotOf(c, service);
      if (snapshot instanceof Response) return snapshot;
      const agent = c.req.param('agent');
      const role = c.req.query('role');
      if (role === undefined && !snapshot.fleet.some((a) => a.id === agent)) {
        const ids = snapshot.fleet.map((a) => a.id);
        const suggestions = closestNames(agent ?? '', ids);
        const message = `agent ${JSON.stringify(agent)} is not in the fleet${didYouMean(suggestions)} (known agents: ${ids.join(', ') || '(no fleet)'}); give role=`;
        const d = error('UNKNOWN_AGENT', message);
        if (suggestions.length > 0) d.suggestions = suggestions;
        return errorResponse(c, 404, 'UNKNOWN_AGENT', message, [d]);
      }
      const outcome = agentConfig(snapshot, role === undefined ? { agent } : { agent, role });
      if (!outcome.ok) return diagnosticsResponse(c, outcome.diagnostics);
      const warnings = outcome.result.diagnostics ?? [];
      if (warnings.length > 0)
        c.header('X-Strata-Warnings', [...new Set(warnings.map((d) => d.code))].join(', '));
      return c.json(outcome.result);
    },
  );

  addRoute(
    app,
    createRoute({
      method: 'get',
      path: '/api/status',
      operationId: 'getStatus',
      tags: ['service'],
      summary: 'Version served, when it was loaded, and the last reload error',
      responses: { 200: json(StatusSchema, 'Service status') },
    }),
    (c) => {
      const { store } = service;
      const state = store.state;
      const failure = store.lastError;
      const held = store.held;
      const snapshot = state?.snapshot;
      return c.json({
        // As /readyz: with --strict, a pack with warnings is not ready.
        ready: snapshot !== undefined && (!service.strict || packProblems(snapshot).length === 0),
        version: snapshot?.version ?? null,
        previous: state?.previous?.version ?? null,
        preset: snapshot ? (snapshot.preset ?? null) : null,
        loadedAt: state?.loadedAt.toISOString() ?? null,
        lastReloadAt: store.lastAttemptAt?.toISOString() ?? null,
        lastReloadRead: store.lastRead ?? null,
        lastError: failure
          ? { at: failure.at.toISOString(), trigger: failure.trigger, diagnostics: failure.diagnostics }
          : null,
        held: held
          ? {
              version: held.version,
              at: held.at.toISOString(),
              trigger: held.trigger,
              members: held.report.members,
              layers: held.report.layers,
              diagnostics: held.diagnostics,
            }
          : null,
        warnings: snapshot?.warnings ?? [],
        counts: {
          files: snapshot?.files.size ?? 0,
          roles: snapshot?.roles.size ?? 0,
          agents: snapshot?.fleet.length ?? 0,
        },
        service: {
          version: VERSION,
          watching: service.watching,
          startedAt: service.startedAt.toISOString(),
          allowLayerLoss: store.allowLayerLoss,
        },
      });
    },
  );
}
