import type { Layout } from '../../core/layout.js';
import { PRESET, PRESET_PART } from './preset-text.js';
import { pythonStr } from './python-str.js';
import { fillInTurn } from './record-fill.js';

/**
 * CrewAI agents: records of `agents.yaml` through CrewAI's role-playing template, with
 * run inputs written as Python's `str()` writes them (`format: python`) and filled into
 * record values as CrewAI's `interpolate_only` fills them. A repository whose crews all
 * sit deeper than the preset's `detect:` looks (`course/lessons/<crew>/config/`, no `src/`)
 * is this layout too, when no other layout's own files are there (`detectAlso`, with a
 * `role:` record).
 */
export const crewai: Layout = {
  name: 'crewai',
  preset: PRESET,
  presetPart: PRESET_PART,
  detectAlso: ['**/config/agents.yaml', '**/config/agents.yml'],
  formats: { python: { write: pythonStr } },
  fillRecord: fillInTurn,
};
