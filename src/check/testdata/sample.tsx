/**
 * A task list component.
 */
import React, { useState, type ReactNode } from "react";

type Props = {
  title: string;
  items: string[];
  footer?: ReactNode;
  onPick: (item: string) => void;
};

export function TaskList({ title, items, footer, onPick }: Props) {
  const [filter, setFilter] = useState<string>("");
  const shown = items.filter((item) => item.includes(filter));

  return (
    <section className="tasks">
      <h2>{title}</h2>
      <input
        value={filter}
        placeholder="Filter"
        onChange={(e) => setFilter(e.target.value)}
      />
      {shown.length === 0 ? (
        <p className="empty">Nothing to show</p>
      ) : (
        <ul>
          {shown.map((item) => (
            <li key={item} onClick={() => onPick(item)}>
              {item}
            </li>
          ))}
        </ul>
      )}
      {footer && <footer>{footer}</footer>}
    </section>
  );
}

const style = `
  .tasks { padding: 1rem; }
`;

export default function App(): JSX.Element {
  const pick = (item: string) => console.log(`picked ${item}`);
  return <TaskList title="Today" items={["a", "b"]} onPick={pick} footer={<small>{style.length}</small>} />;
}
