// Input level from the captured frames (0..1, see audio/level.ts).
import { useApp } from '../store/hooks.js';

export function LevelMeter() {
  const level = useApp((s) => s.session.level);
  const open = useApp((s) => s.session.micLabel !== null);
  return (
    <div className="level">
      <label htmlFor="input-level" className="level-label">
        Input level
      </label>
      <meter
        id="input-level"
        className={`level-meter${open ? '' : ' level-off'}`}
        min={0}
        max={1}
        low={0.15}
        high={0.9}
        optimum={0.5}
        value={level}
        data-testid="level-meter"
      >
        {Math.round(level * 100)} %
      </meter>
    </div>
  );
}
