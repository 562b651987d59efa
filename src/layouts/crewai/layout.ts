import type { Layout } from '../../core/layout.js';
import { PRESET, PRESET_PART } from './preset-text.js';
import { pythonStr } from './python-str.js';
import { fillInTurn } from './record-fill.js';

/**
 * CrewAI agents: records of `agents.yaml` through CrewAI's role-playing template, with
 * run inputs written as Python's `str()` writes them (`format: python`) and filled into
 * record values as CrewAI's `interpolate_only` fills them.
 */
export const crewai: Layout = {
  name: 'crewai',
  preset: PRESET,
  presetPart: PRESET_PART,
  formats: { python: { write: pythonStr } },
  fillRecord: fillInTurn,
};
