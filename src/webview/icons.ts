/** Icons the panel draws itself: it loads no icon font (its CSP allows only its own style and script). */

/** A small line-chart icon in the theme's text colour (the panel loads no icon font). */
export function chartIcon(): SVGSVGElement {
  const icon = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  icon.setAttribute('viewBox', '0 0 16 16');
  icon.setAttribute('width', '14');
  icon.setAttribute('height', '14');
  icon.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', 'M1.5 14.5h13M2.5 11l3.5-4 3 2.5 5-6');
  path.setAttribute('fill', 'none');
  path.setAttribute('stroke', 'currentColor');
  path.setAttribute('stroke-width', '1.5');
  icon.append(path);
  return icon;
}
