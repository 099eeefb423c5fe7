/**
 * Steps over a list where each step may answer now (SQLite) or later (a
 * database server). A SQLite transaction cannot wait for a promise, so a
 * push's many small writes run inside one with every step taken at once;
 * on a server backend the same code waits for each step in turn.
 *
 * @module
 */

/**
 * Runs `step` on each item in order, the next after the previous answered, and collects the
 * answers: synchronously when every step answered at once, else as a promise.
 *
 * @example
 * ```ts
 * import { eachInTurn } from "./in_turn.ts";
 * eachInTurn([1, 2], (n) => n * 2); // [2, 4], synchronously
 * await eachInTurn([1, 2], (n) => Promise.resolve(n + 1)); // [2, 3]
 * ```
 */
export function eachInTurn<T, U>(
  items: readonly T[],
  step: (item: T) => U | Promise<U>,
): U[] | Promise<U[]> {
  const answers: U[] = [];
  const from = (start: number): U[] | Promise<U[]> => {
    for (let i = start; i < items.length; i++) {
      const answer = step(items[i]);
      if (answer instanceof Promise) {
        return answer.then((value) => {
          answers.push(value);
          return from(i + 1);
        });
      }
      answers.push(answer);
    }
    return answers;
  };
  return from(0);
}
