/**
 * The page's styles where the panel is mounted on a page that did not
 * bundle them: the viewer page imports style.css itself (page-start.ts),
 * but a page that asks a packaged viewer for its panel (`ui: true`) gets
 * only JavaScript, and a library's CSS file is left for the page to link.
 * So the panel carries the same styles as text and adds them once, unless
 * the page already has them (style.css marks :root with a custom property).
 */
import styles from './style.css?inline';

const MARK = '--splatsort-styles';

export function ensurePanelStyles(): void {
  if (getComputedStyle(document.documentElement).getPropertyValue(MARK).trim() !== '') return;
  const element = document.createElement('style');
  element.dataset.splatsort = 'panel';
  element.textContent = styles;
  document.head.append(element);
}
