import type { Command } from 'commander';
import type { Snapshot } from '../../core/build/snapshot.js';
import type { ComposeRequest, ComposeResult } from '../../core/compose/compose.js';
import { formatExplain } from '../../core/compose/explain.js';
import { isTokenizerName, TOKENIZER_NAMES } from '../../core/pack/tokenizer-names.js';
import { formatDiagnostic } from '../../core/text/diagnostics.js';
import { isProviderFormat, PROVIDER_FORMATS, providerBody } from '../../formats/registry.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import { type CliIO, EXIT_FAIL, EXIT_OK, type Exit, UsageError } from '../io.js';
import {
  addRequestOptions,
  composeFromFlags,
  openPackFromFlags,
  type RequestFlags,
  reportLoad,
  requestFromFlags,
} from '../pack-options.js';
import { summary } from './list.js';

/** `strata compose` and `strata explain`: the prompt, or the table of its layers. */
export function register(program: Command, io: CliIO, exit: Exit): void {
  addRequestOptions(program.command('compose'))
    .description(summary('compose'))
    .option('--json', 'print the result object with provenance and token counts instead')
    .option('--format <format>', `${OUTPUT_FORMATS.join(' | ')} (a provider request body)`)
    .addHelpText('after', EXIT_HELP)
    .option(
      '--tokenizer <name>',
      `count tokens with ${TOKENIZER_NAMES.join(' | ')} (default: the manifest's)`,
    )
    .action(async (flags: TokenFlags & { json?: boolean; format?: string }) => {
      const format = flags.format ?? (flags.json ? 'json' : 'text');
      checkTokenizerFlag(flags);
      if (!OUTPUT_FORMATS.includes(format)) {
        const names = `${OUTPUT_FORMATS.slice(0, -1).join(', ')} or ${OUTPUT_FORMATS.at(-1)}`;
        throw new UsageError(`--format must be ${names}, not ${JSON.stringify(format)}`);
      }
      if (flags.json && format !== 'json') throw new UsageError('give --json or --format, not both');
      exit(
        await composeCommand(flags, io, async (result, snapshot, request) => {
          if (format === 'text') return result.text;
          if (isProviderFormat(format)) {
            const body = providerBody(snapshot, result, format, { settings: request.settings });
            return `${JSON.stringify(body)}\n`;
          }
          return `${JSON.stringify(await counted(result, snapshot, flags, io), null, 2)}\n`;
        }),
      );
    });

  addRequestOptions(program.command('explain'))
    .description(summary('explain'))
    .option('--json', 'print the result object')
    .addHelpText('after', EXIT_HELP)
    .option(
      '--tokenizer <name>',
      `count tokens with ${TOKENIZER_NAMES.join(' | ')} (default: the manifest's)`,
    )
    .option('--cache', 'prefix-cache analysis of the whole fleet instead of one prompt')
    .action(async (flags: TokenFlags & { json?: boolean; cache?: boolean }) => {
      checkTokenizerFlag(flags);
      if (flags.cache) return exit(await cacheCommand(flags, io));
      exit(
        await composeCommand(flags, io, async (result, snapshot) => {
          const tokenized = await counted(result, snapshot, flags, io);
          return flags.json ? `${JSON.stringify(tokenized, null, 2)}\n` : formatExplain(tokenized);
        }),
      );
    });
}

// --- internal ---

/** What `compose --format` prints: the text, the result, or a provider body (src/formats/). */
const OUTPUT_FORMATS: readonly string[] = ['text', 'json', ...PROVIDER_FORMATS];

const EXIT_HELP =
  '\nExit status: 0 composed (warnings allowed), 1 an error in the pack or the request, 2 a usage error.';

type TokenFlags = RequestFlags & { tokenizer?: string };

async function composeCommand(
  flags: RequestFlags,
  io: CliIO,
  render: (result: ComposeResult, snapshot: Snapshot, request: ComposeRequest) => string | Promise<string>,
): Promise<number> {
  const composed = await composeFromFlags(flags, io);
  if (!composed) return EXIT_FAIL;
  io.stdout(await render(composed.result, composed.snapshot, composed.request));
  return EXIT_OK;
}

/** `explain --cache`: the fleet's shared prefix and what a prefix cache serves. */
async function cacheCommand(flags: TokenFlags & { json?: boolean }, io: CliIO): Promise<number> {
  for (const key of ['role', 'team', 'agent', 'ambient', 'ambientFile'] as const) {
    if (flags[key] !== undefined)
      throw new UsageError('--cache analyses the whole fleet: drop --role, --team, --agent and --ambient');
  }
  const snapshot = reportLoad(await openPackFromFlags(flags, io), io);
  if (!snapshot) return EXIT_FAIL;
  const { settings } = await requestFromFlags(flags, io);
  const { analyzeCache, formatCacheReport } = await import('../../tokens/cache.js');
  const { tokenizerFor } = await counting();
  const report = analyzeCache(snapshot, tokenizerFor(flags, snapshot), { settings });
  io.stdout(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatCacheReport(report));
  return EXIT_OK;
}

function checkTokenizerFlag(flags: TokenFlags): void {
  if (flags.tokenizer !== undefined && !isTokenizerName(flags.tokenizer)) {
    throw new UsageError(
      `--tokenizer must be one of ${TOKENIZER_NAMES.join(', ')}, not ${JSON.stringify(flags.tokenizer)}`,
    );
  }
}

/**
 * The result with token counts. Without the optional tokenizer, the result as it is and a
 * note on stderr (counts are auxiliary), unless `--tokenizer` asked for them: an error.
 */
async function counted(
  result: ComposeResult,
  snapshot: Snapshot,
  flags: TokenFlags,
  io: CliIO,
): Promise<ComposeResult> {
  const { withTokens, tokenizerFor, tokenizerAvailable, tokenizerMissing } = await counting();
  if (tokenizerAvailable() || flags.tokenizer !== undefined)
    return withTokens(result, snapshot, tokenizerFor(flags, snapshot));
  io.stderr(`${formatDiagnostic(tokenizerMissing('the token counts are left out', 'info'))}\n`);
  return result;
}

/**
 * Token counting, loaded when an output counts (`--json`, `explain`): a plain `compose`
 * prints its text without loading it (or the tokenizer). `tokenizerFor` is --tokenizer,
 * else the manifest's `tokenizer:`, else o200k_base.
 */
async function counting() {
  const [{ withTokens }, { getTokenizer, tokenizerAvailable, tokenizerMissing }, { tokenConfig }] =
    await Promise.all([
      import('../../tokens/count.js'),
      import('../../tokens/tokenizer.js'),
      import('../../tokens/config.js'),
    ]);
  const tokenizerFor = (flags: TokenFlags, snapshot: Snapshot): Tokenizer =>
    getTokenizer(isTokenizerName(flags.tokenizer) ? flags.tokenizer : tokenConfig(snapshot).tokenizer);
  return { withTokens, tokenizerFor, tokenizerAvailable, tokenizerMissing };
}
