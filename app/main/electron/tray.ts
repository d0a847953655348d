// Electron adapter: the tray / menu-bar icon. Renders presentation.ts's look,
// tooltip and menu; rebuilds only when one of them changed (the level changes
// many times a second, the tray must not).
import { Menu, Tray, nativeImage, type MenuItemConstructorOptions, type NativeImage } from 'electron';
import type { DesktopState } from '../tray/desktop-state.js';
import { trayLook, trayMenu, trayTooltip, type MenuItemModel, type TrayCommand, type TrayLook } from '../tray/presentation.js';
import { trayIconPng } from '../tray/tray-icons.js';

function icon(look: TrayLook): NativeImage {
  // 16 px and its @2x: the OS picks by the panel's scale.
  const image = nativeImage.createFromBuffer(trayIconPng(look, 16), { scaleFactor: 1 });
  image.addRepresentation({ scaleFactor: 2, buffer: trayIconPng(look, 32) });
  return image;
}

function toTemplate(items: MenuItemModel[], run: (command: TrayCommand) => void): MenuItemConstructorOptions[] {
  return items.map((item) =>
    item.kind === 'separator'
      ? { type: 'separator' }
      : item.kind === 'info'
        ? { label: item.label, enabled: false }
        : { label: item.label, enabled: item.enabled, click: () => run(item.id) },
  );
}

export class TrayIcon {
  private readonly tray: Tray;
  private readonly icons = new Map<TrayLook, NativeImage>();
  private shown = { look: '', tooltip: '', menu: '' };

  constructor(private readonly run: (command: TrayCommand) => void) {
    this.tray = new Tray(this.iconFor('idle'));
  }

  render(state: DesktopState): void {
    const look = trayLook(state);
    const tooltip = trayTooltip(state);
    const items = trayMenu(state);
    const menu = JSON.stringify(items);
    if (look !== this.shown.look) this.tray.setImage(this.iconFor(look));
    if (tooltip !== this.shown.tooltip) this.tray.setToolTip(tooltip);
    if (menu !== this.shown.menu) this.tray.setContextMenu(Menu.buildFromTemplate(toTemplate(items, this.run)));
    this.shown = { look, tooltip, menu };
  }

  dispose(): void {
    this.tray.destroy();
  }

  private iconFor(look: TrayLook): NativeImage {
    let image = this.icons.get(look);
    if (!image) {
      image = icon(look);
      this.icons.set(look, image);
    }
    return image;
  }
}
