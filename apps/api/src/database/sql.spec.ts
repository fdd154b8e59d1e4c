import { numberedParameters } from './sql';

describe(numberedParameters.name, () => {
  it('numbers the placeholders in order, as PostgreSQL wants them', () => {
    expect(numberedParameters('SELECT 1 FROM t WHERE a = ? AND b IN (?, ?) LIMIT ? OFFSET ?')).toBe(
      'SELECT 1 FROM t WHERE a = $1 AND b IN ($2, $3) LIMIT $4 OFFSET $5',
    );
  });

  it('leaves a statement without placeholders as it is', () => {
    expect(numberedParameters("SELECT 'x' AS y")).toBe("SELECT 'x' AS y");
  });
});
