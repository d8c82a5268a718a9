// Tasks run a few at a time, as the matrices of real processes run their cells.

/** Runs the tasks `size` at a time; every task settles before a failure is reported (none starts processes late). */
export async function pool<T>(tasks: (() => Promise<T>)[], size: number): Promise<T[]> {
  const results: T[] = [];
  const failures: unknown[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < tasks.length) {
        const i = next++;
        try {
          results[i] = await tasks[i]!();
        } catch (error) {
          failures.push(error);
        }
      }
    }),
  );
  if (failures.length > 0) throw failures[0];
  return results;
}
