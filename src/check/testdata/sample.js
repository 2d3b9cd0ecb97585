'use strict';

/**
 * A small store with subscribers.
 * The block comment spans several lines on purpose: a cut inside it
 * must read as unfinished, not broken.
 */
export class Store {
  #state;
  #listeners = new Set();

  constructor(initial = {}) {
    this.#state = { ...initial };
  }

  get state() {
    return this.#state;
  }

  subscribe(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  update(patch) {
    this.#state = { ...this.#state, ...patch };
    for (const fn of this.#listeners) {
      fn(this.#state);
    }
  }
}

const template = `
  <section class="board">
    <h1>${document.title}</h1>
    <ul id="tasks"></ul>
  </section>
`;

export async function load(url, { retries = 3 } = {}) {
  for (let attempt = 1; attempt <= retries; attempt++) {
    try {
      const response = await fetch(url);
      if (!response.ok) {
        throw new Error(`HTTP ${response.status}`);
      }
      return await response.json();
    } catch (err) {
      if (attempt === retries) {
        throw err;
      }
    }
  }
  return null;
}

const handlers = {
  click: (event) => event.preventDefault(),
  keydown(event) {
    if (event.key === 'Enter') {
      submit(event.target.value);
    }
  },
};

function submit(value) {
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  return items.length > 0 ? items : [template];
}

export default { Store, load, handlers };
