import { describe, expect, it } from 'vitest';
import { medianPhases } from '../../../bench/start.js';

describe('npm run bench start: the warm start split into phases', () => {
  it('gives each phase its own duration (from the previous mark) and the median of the rounds', () => {
    const round = (imported: number, built: number, jobs: number) => ({
      marks: { node_and_loader: 200, modules_imported: 200 + imported, app_built: 200 + imported + built },
      within: { job_engine_start: jobs },
    });
    expect(medianPhases([round(7000, 1500, 800), round(9000, 1000, 900), round(8000, 2000, 700)])).toEqual({
      node_and_loader: 0.2,
      modules_imported: 8,
      app_built: 1.5,
      '  app_built includes job_engine_start': 0.8,
    });
  });
});
