/**
 * Steps over values that come now or later. SQLite answers in the same call; a database
 * server answers with a promise. Code that must stay synchronous on SQLite — a hook's rules
 * run inside the write that stores the hook, and a SQLite transaction cannot wait for a
 * promise — chains its steps with {@linkcode andThen}: on a value it runs the next step at
 * once, on a promise it runs it when the promise settles. One implementation then serves
 * both backends, and stays synchronous where every answer was.
 *
 * @module
 */

/** A value now, or a promise of it. */
export type Eventually<T> = T | Promise<T>;

/**
 * Runs `next` on `value`: at once when it is a value, after it settles when it is a promise.
 *
 * @example
 * ```ts
 * import { andThen } from "./eventually.ts";
 * andThen(2, (n) => n + 1); // 3, synchronously
 * await andThen(Promise.resolve(2), (n) => n + 1); // 3
 * ```
 */
export function andThen<T, U>(
  value: Eventually<T>,
  next: (value: T) => Eventually<U>,
): Eventually<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * Runs `step` on each item in order, the next one only after the previous one answered, and
 * collects the answers: synchronously when every step answered at once.
 *
 * @example
 * ```ts
 * import { eachInTurn } from "./eventually.ts";
 * eachInTurn([1, 2], (n) => n * 2); // [2, 4], synchronously
 * ```
 */
export function eachInTurn<T, U>(
  items: readonly T[],
  step: (item: T) => Eventually<U>,
): Eventually<U[]> {
  const answers: U[] = [];
  const from = (index: number): Eventually<U[]> => {
    for (let i = index; i < items.length; i++) {
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
