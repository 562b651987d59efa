import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { tryCompose } from '../../src/core/compose.js';
import { buildSnapshot } from '../../src/core/snapshot.js';
import { ROOT } from './helpers.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Dockerfile instructions (continuations joined), grouped by build stage. */
function dockerStages(text: string): Array<{ from: string; lines: Array<[string, string]> }> {
  const joined = text.replace(/\\\n/g, ' ');
  const stages: Array<{ from: string; lines: Array<[string, string]> }> = [];
  for (const raw of joined.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [, op, rest] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    if (!op || rest === undefined) throw new Error(`bad Dockerfile line: ${line}`);
    if (op.toUpperCase() === 'FROM') stages.push({ from: rest, lines: [] });
    else stages.at(-1)!.lines.push([op.toUpperCase(), rest]);
  }
  return stages;
}

describe('deploy/Dockerfile', () => {
  const stages = dockerStages(read('deploy/Dockerfile'));
  const final = stages.at(-1)!;
  const ops = (op: string) => final.lines.filter(([o]) => o === op).map(([, rest]) => rest);

  it('is multi-stage, building on Node 20 and shipping only the runtime', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages.every((s) => /^node:20\b/.test(s.from))).toBe(true);
    expect(stages[0]!.lines.some(([o, r]) => o === 'RUN' && r.includes('npm ci'))).toBe(true);
    expect(ops('COPY').every((c) => c.startsWith('--from=build'))).toBe(true);
  });

  it('runs as a non-root user, writes nothing, and checks /readyz', () => {
    expect(ops('USER')).toEqual(['node']);
    expect(ops('RUN')).toEqual([]);
    expect(ops('HEALTHCHECK').join(' ')).toMatch(/CMD .*\/readyz/);
    expect(ops('EXPOSE')).toEqual(['7411']);
    expect(JSON.parse(ops('ENTRYPOINT')[0]!)).toEqual(['node', 'dist/bin/strata.js']);
    expect(JSON.parse(ops('CMD')[0]!)).toEqual(['serve']);
    expect(ops('ENV').join(' ')).toContain('STRATA_HOST=0.0.0.0');
  });

  it('copies every runtime file the service reads', () => {
    const copied = ops('COPY').join('\n');
    for (const path of ['/app/dist', '/app/node_modules', '/app/presets', '/app/src/inspector/static'])
      expect(copied).toContain(path);
  });
});

describe('deploy/compose.yaml', () => {
  const compose = parseYaml(read('deploy/compose.yaml'));
  const svc = compose.services.strata;

  it('mounts a pack read-only at the directory the service reads, on a read-only root', () => {
    expect(svc.read_only).toBe(true);
    expect(svc.volumes).toEqual([
      expect.objectContaining({ target: '/etc/strata/prompts', read_only: true }),
    ]);
    expect(svc.environment.STRATA_PROMPTS_DIR).toBe('/etc/strata/prompts');
    expect(svc.build.dockerfile).toBe('deploy/Dockerfile');
    expect(svc.ports).toEqual(['127.0.0.1:7411:7411']);
  });
});

describe('deploy/k8s', () => {
  const docs = ['configmap', 'deployment', 'service'].flatMap((name) =>
    parseAllDocuments(read(`deploy/k8s/${name}.yaml`)).map((d) => {
      expect(d.errors).toEqual([]);
      return d.toJS();
    }),
  );
  const byKind = (kind: string) => docs.find((d) => d.kind === kind)!;
  const configMap = byKind('ConfigMap');
  const deployment = byKind('Deployment');
  const service = byKind('Service');
  const container = deployment.spec.template.spec.containers[0];

  it('holds a valid pack in the ConfigMap', () => {
    const files = new Map(
      Object.entries(configMap.data as Record<string, string>).map(([k, v]) => [
        k,
        new TextEncoder().encode(v),
      ]),
    );
    const { snapshot, diagnostics } = buildSnapshot({ files, env: {} });
    expect(diagnostics).toEqual([]);
    expect(snapshot!.preset).toBe('chorus');
    const outcome = tryCompose(snapshot!, { role: 'arbiter' });
    expect(outcome.ok && outcome.result.text).toBe(
      'You weigh proposals and decide, giving your reasons.\n\nAnswer in plain language. Say what you are unsure of.',
    );
  });

  it('runs several stateless replicas with readiness and liveness probes', () => {
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.ports).toEqual([{ name: 'http', containerPort: 7411 }]);
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(deployment.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
  });

  it('mounts the ConfigMap as a whole folder (so ..data swaps reach the service)', () => {
    const mount = container.volumeMounts[0];
    expect(mount).toEqual({ name: 'prompts', mountPath: '/etc/strata/prompts', readOnly: true });
    expect(mount.subPath).toBeUndefined();
    const volume = deployment.spec.template.spec.volumes.find((v: { name: string }) => v.name === mount.name);
    expect(volume.configMap.name).toBe(configMap.metadata.name);
    const env = Object.fromEntries(
      container.env.map((e: { name: string; value?: string }) => [e.name, e.value]),
    );
    expect(env.STRATA_PROMPTS_DIR).toBe(mount.mountPath);
  });

  it('selects the Deployment’s pods from the Service', () => {
    expect(service.spec.selector).toEqual(deployment.spec.template.metadata.labels);
    expect(deployment.spec.selector.matchLabels).toEqual(deployment.spec.template.metadata.labels);
    expect(service.spec.ports[0].targetPort).toBe('http');
  });
});
