-- dancehall coordinator schema, version 3: weighted units and the counting core. A job may be
-- submitted as weighted units: its total is sum(weight x solutions) over the accepted results
-- of its work units (computed in Rust as checked u128, never in SQL), times the symmetry factor.

-- The unit's weight (decimal u128, at least 1); re-split children and audits copy their
-- parent's.
ALTER TABLE units ADD COLUMN weight TEXT NOT NULL DEFAULT '1';

-- The core the job's units are counted with: 'dlx' or 'sudoku-bands RxC' (CoreSpec::text).
ALTER TABLE jobs ADD COLUMN core TEXT NOT NULL DEFAULT 'dlx';

-- The core that counted an accepted result: 'dlx' or 'sudoku-bands' (CountCore::as_str).
ALTER TABLE unit_results ADD COLUMN core TEXT NOT NULL DEFAULT 'dlx';
