// View switcher. Plain buttons in a nav landmark: Tab reaches each one,
// aria-current marks the shown view; Alt+1..6 jump directly (in this order).
import * as actions from '../store/actions.js';
import { useApp } from '../store/hooks.js';
import type { View } from '../store/types.js';

export const VIEWS: { id: View; label: string }[] = [
  { id: 'dictate', label: 'Dictate' },
  { id: 'files', label: 'Files' },
  { id: 'history', label: 'History' },
  { id: 'devices', label: 'Devices' },
  { id: 'models', label: 'Models' },
  { id: 'settings', label: 'Settings' },
  { id: 'meeting', label: 'Meeting' },
];

export function Nav() {
  const view = useApp((s) => s.ui.view);
  return (
    <nav className="nav" aria-label="Views">
      {VIEWS.map((v, i) => (
        <button
          key={v.id}
          type="button"
          className="nav-item"
          aria-current={view === v.id ? 'page' : undefined}
          aria-keyshortcuts={`Alt+${i + 1}`}
          onClick={() => actions.showView(v.id)}
          data-testid={`nav-${v.id}`}
        >
          {v.label}
        </button>
      ))}
    </nav>
  );
}
