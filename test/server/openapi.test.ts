import { describe, expect, it } from 'vitest';
import { compileAll } from './contract.js';
import { appFor, MINI } from './helpers.js';

/** The document itself: every schema compiles in Ajv's strict mode; every operation has an id. */
describe('/openapi.json', () => {
  it('compiles in Ajv (strict), and names every operation', async () => {
    const service = await appFor(MINI);
    const res = await service.app.request('/openapi.json');
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.0.3');
    expect(compileAll(doc)).toBeGreaterThan(20);
    const ids: string[] = [];
    for (const [path, item] of Object.entries(
      doc.paths as Record<string, Record<string, { operationId?: string }>>,
    )) {
      for (const [method, op] of Object.entries(item)) {
        expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
        ids.push(op.operationId!);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    for (const path of ['/healthz', '/readyz', '/metrics', '/api/events', '/openapi.json']) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
    const prompt = doc.paths['/api/prompts/{role}'].get;
    expect(prompt.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['role', 'team', 'agent', 'format', 'set', 'If-None-Match']),
    );
    expect(Object.keys(prompt.responses['200'].headers)).toEqual(
      expect.arrayContaining(['ETag', 'X-Strata-Version']),
    );
    const codes = doc.components.schemas.Diagnostic.properties.code.enum;
    expect(codes).toContain('UNKNOWN_ROLE');
    expect(doc.components.schemas.Layer.properties.reason.enum).toEqual([
      'gated',
      'missing',
      'empty',
      'no-value',
    ]);
    service.close();
  });
});
