/** An integer setting: `fallback` when unset or empty, an error naming the variable when not an integer. */
export function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new Error(`${name} must be an integer, got "${value}"`);
  return n;
}

export function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const n = int(env[name], fallback, name);
  if (n <= 0) throw new Error(`${name} must be a positive integer`);
  return n;
}
