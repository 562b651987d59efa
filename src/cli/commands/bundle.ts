import type { Command } from 'commander';
import { pathSelector } from '../../core/pack/select.js';
import { type Diagnostic, error } from '../../core/text/diagnostics.js';
import { buildSnapshot } from '../../engine/default-engine.js';
import { createBundle } from '../../source/bundle.js';
import { ioReason, writeFileAtomic } from '../atomic-write.js';
import { type CliIO, EXIT_FAIL, EXIT_OK, type Exit, UsageError } from '../io.js';
import {
  addPackOptions,
  openPackFromFlags,
  type PackFlags,
  printDiagnostics,
  resolvePath,
} from '../pack-options.js';
import { packRelativePath } from '../pack-target.js';
import { summary } from './list.js';

/** Kubernetes refuses a ConfigMap whose data is over 1 MiB. */
export const CONFIGMAP_MAX_BYTES = 1024 * 1024;

interface BundleFlags extends PackFlags {
  out?: string;
  configmap?: string;
  key: string;
}

/**
 * `strata bundle`: the whole pack as one gzip'd tar (deterministic bytes), which
 * `--dir`/`STRATA_PROMPTS_DIR` can name directly; `--configmap NAME` wraps it in a
 * Kubernetes ConfigMap manifest (binaryData). A pack with errors is not bundled.
 */
export function register(program: Command, io: CliIO, exit: Exit): void {
  addPackOptions(program.command('bundle'))
    .description(summary('bundle'))
    .option('--out <file>', 'write the bundle (or, with --configmap, the manifest) to this file')
    .option('--configmap <name>', 'print a ConfigMap manifest holding the bundle (binaryData)')
    .option('--key <name>', 'the file name of the bundle in the ConfigMap', 'pack.tgz')
    .addHelpText(
      'after',
      '\nServe it with --dir FILE (or STRATA_PROMPTS_DIR=FILE); mount the ConfigMap as a folder and point' +
        '\nSTRATA_PROMPTS_DIR at /etc/strata/prompts/pack.tgz. A ConfigMap holds at most 1 MiB: use a git-sync' +
        '\nsidecar for larger packs (docs/deploy.md).' +
        '\nExit status: 0 written, 1 an error in the pack (nothing written) or a write error, 2 a usage error.',
    )
    .action(async (flags: BundleFlags) => {
      if (flags.out === undefined && flags.configmap === undefined)
        throw new UsageError('give --out FILE (the bundle) or --configmap NAME (a manifest on stdout)');
      if (flags.configmap !== undefined && !DNS_SUBDOMAIN.test(flags.configmap))
        throw new UsageError(
          `--configmap must be a Kubernetes name (lower-case letters, digits, - and ., at most 253), not ${JSON.stringify(flags.configmap)}`,
        );
      if (!/^[-._a-zA-Z0-9]{1,253}$/.test(flags.key) || flags.key === '.' || flags.key === '..')
        throw new UsageError(
          `--key must be a ConfigMap key (letters, digits, - _ .), not ${JSON.stringify(flags.key)}`,
        );

      // 1. Read and validate the pack; keep the bytes as read.
      let files: ReadonlyMap<string, Uint8Array> = new Map();
      const result = await openPackFromFlags(flags, io, (input) => {
        files = input.files;
        return buildSnapshot(input);
      });
      printDiagnostics(result.diagnostics, io);
      if (!result.snapshot) return exit(EXIT_FAIL);

      // A bundle the pack would read as one of its files fails the pack's next load.
      if (flags.out !== undefined && flags.configmap === undefined) {
        const inPack = await packRelativePath(resolvePath(io, flags.out), flags, io);
        if (inPack !== undefined && pathSelector(result.snapshot.manifest)(inPack)) {
          printDiagnostics(
            [
              error(
                'WRITE_ERROR',
                `would be the pack's file ${inPack}: a bundle among the pack's own text files fails its next load (INVALID_UTF8); give --out a path outside the pack`,
                { file: flags.out },
              ),
            ],
            io,
          );
          return exit(EXIT_FAIL);
        }
      }

      // 2. Bundle; wrap in a ConfigMap when asked.
      const bundle = createBundle(files);
      let output: string | Uint8Array = bundle;
      if (flags.configmap !== undefined) {
        if (bundle.length + flags.key.length > CONFIGMAP_MAX_BYTES) {
          printDiagnostics([tooLarge(bundle.length)], io);
          return exit(EXIT_FAIL);
        }
        output = configMap(flags.configmap, flags.key, bundle, result.snapshot.version);
      }
      if (flags.out === undefined) {
        io.stdout(output as string);
      } else {
        try {
          await writeFileAtomic(resolvePath(io, flags.out), output);
        } catch (e) {
          printDiagnostics([error('WRITE_ERROR', `cannot write: ${ioReason(e)}`, { file: flags.out })], io);
          return exit(EXIT_FAIL);
        }
      }
      io.stderr(
        `bundled ${files.size} files, ${bundle.length} bytes, version ${result.snapshot.version}${flags.out ? ` → ${flags.out}` : ''}\n`,
      );
      exit(EXIT_OK);
    });
}

/**
 * A ConfigMap manifest holding a bundle under `key` (binaryData), labelled for strata and
 * annotated with the pack version.
 */
export function configMap(name: string, key: string, bundle: Uint8Array, version: string): string {
  return [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    `  name: ${name}`,
    '  labels:',
    '    app.kubernetes.io/name: strata',
    '  annotations:',
    `    strata/pack-version: "${version}"`,
    'binaryData:',
    `  ${key}: ${Buffer.from(bundle).toString('base64')}`,
    '',
  ].join('\n');
}

// --- internal ---

const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function tooLarge(bytes: number): Diagnostic {
  return error(
    'CONFIGMAP_TOO_LARGE',
    `the bundle is ${bytes} bytes; a ConfigMap holds at most ${CONFIGMAP_MAX_BYTES}: ship the pack with a git-sync sidecar instead (docs/deploy.md)`,
  );
}
