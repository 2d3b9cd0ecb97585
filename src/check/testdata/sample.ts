/**
 * Typed task queue with retries.
 * A cut inside this comment must read as unfinished.
 */
import { EventEmitter } from "node:events";

export type Priority = "low" | "normal" | "high";

export interface Task<T = unknown> {
  id: string;
  priority: Priority;
  payload: T;
  attempts?: number;
}

enum State {
  Idle,
  Running = "running",
}

export class Queue<T> extends EventEmitter {
  private readonly tasks: Array<Task<T>> = [];
  #state: State = State.Idle;

  constructor(private readonly limit: number = 3) {
    super();
  }

  push(task: Task<T>): number {
    this.tasks.push({ ...task, attempts: task.attempts ?? 0 });
    return this.tasks.length;
  }

  async run(worker: (t: Task<T>) => Promise<void>): Promise<void> {
    this.#state = State.Running;
    for (const task of this.tasks) {
      try {
        await worker(task);
      } catch (err: unknown) {
        const message = err instanceof Error ? err.message : String(err);
        this.emit("failed", `task ${task.id} failed:
  ${message}`);
      }
    }
    this.#state = State.Idle;
  }
}

const banner = `
  <section class="queue">
    <h1>${new Date().toISOString()}</h1>
    <p>${"limit"}: ${3}</p>
  </section>
`;

export function byPriority<T>(a: Task<T>, b: Task<T>): number {
  const order: Record<Priority, number> = { low: 0, normal: 1, high: 2 };
  return order[b.priority] - order[a.priority];
}

export const defaults = { limit: 3 } as const satisfies { limit: number };
