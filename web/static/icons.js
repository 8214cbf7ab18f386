// The page's icons, drawn from paths rather than taken from a font: an
// emoji needs a font the player may lack (it draws as a box). Each icon
// is a list of parts on a 24 by 24 grid, each an SVG path's data and how
// it is painted: "fill", "even" (filled, the inner shapes cut out) or
// "line" (stroked). One definition makes both the inline SVG of the
// page's HTML (icon) and the canvas's drawing (drawIcon).

const PERSON = "M14.5 4.5a2.5 2.5 0 1 1-5 0a2.5 2.5 0 1 1 5 0";

const ICONS = {
  // The emotes: a figure doing it.
  wave: [[PERSON, "fill"], ["M12 8v8M12 16l-3 6M12 16l3 6M12 10l-4 4M12 10l5-7", "line"]],
  cheer: [[PERSON, "fill"], ["M12 8v8M12 16l-3 6M12 16l3 6M12 10l-5-7M12 10l5-7", "line"]],
  dance: [[PERSON, "fill"], ["M12 8l1 8M13 16l-5 5M13 16l5 6M12 10l-7-2M12 10l6 4", "line"]],
  point: [[PERSON, "fill"], ["M12 8v8M12 16l-3 6M12 16l3 6M12 10l-3 5M12 10h9M18 7.5l3 2.5-3 2.5", "line"]],
  shrug: [[PERSON, "fill"], ["M12 8v8M12 16l-3 6M12 16l3 6M12 10l-5 1-1-4M12 10l5 1 1-4", "line"]],
  laugh: [["M21 12a9 9 0 1 1-18 0a9 9 0 1 1 18 0", "line"], ["M8 8.5l2 1.5M16 8.5l-2 1.5", "line"], ["M7 13h10a5 5 0 0 1-10 0z", "fill"]],
  // Locks and keys.
  lock: [["M5 11h14v11H5z", "fill"], ["M8 11V8a4 4 0 0 1 8 0v3", "line"]],
  unlock: [["M5 11h14v11H5z", "fill"], ["M8 11V8a4 4 0 0 1 7.7-1.5", "line"]],
  key: [["M10 12a4 4 0 1 1-8 0a4 4 0 1 1 8 0M10 12h12M18 12v4M21 12v3", "line"]],
  // The HUD.
  star: [["M12 2l2.9 6.9 7.1.6-5.4 4.7 1.7 7-6.3-3.8-6.3 3.8 1.7-7L2 9.5l7.1-.6z", "fill"]],
  heart: [["M12 21l-8.5-8.5a5 5 0 0 1 8.5-6.5a5 5 0 0 1 8.5 6.5z", "fill"]],
  car: [["M5 4h14a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2zM6 7h12v3H6zM6 15h12v2H6z", "even"]],
  sound: [["M3 9h4l5-5v16l-5-5H3z", "fill"], ["M15.5 9a4 4 0 0 1 0 6M18.5 6a8 8 0 0 1 0 12", "line"]],
  mute: [["M3 9h4l5-5v16l-5-5H3z", "fill"], ["M16 9l6 6M22 9l-6 6", "line"]],
  map: [["M2 5l7-3 6 3 7-3v17l-7 3-6-3-7 3zM9 2v17M15 5v17", "line"]],
  skull: [["M12 2a9 9 0 0 0-9 9c0 3 1.5 5 3 6v4h12v-4c1.5-1 3-3 3-6a9 9 0 0 0-9-9zM8.5 9a2 2 0 1 0 0 4a2 2 0 1 0 0-4zM15.5 9a2 2 0 1 0 0 4a2 2 0 1 0 0-4z", "even"]],
  // The places.
  shop: [["M4 8h16l-1.5 14h-13z", "fill"], ["M8.5 8V6a3.5 3.5 0 0 1 7 0v2", "line"]],
  garage: [["M2 10l10-7 10 7v12H2zM6 13h12v9H6z", "even"], ["M6 16h12M6 19h12", "line"]],
  hospital: [["M9 2h6v7h7v6h-7v7H9v-7H2V9h7z", "fill"]],
  police: [["M12 1l9 3.5v6.5c0 5.5-4 10-9 12c-5-2-9-6.5-9-12V4.5z", "fill"]],
  crate: [["M3 5h18v14H3zM3 5l18 14M21 5L3 19", "line"]],
  locker: [["M6 2h12v20H6zM8 5h8v2H8zM8 9h8v2H8zM14 14h2v3h-2z", "even"]],
  warning: [["M12 2l11 20H1zM10.8 8h2.4l-.4 8h-1.6zM10.8 18h2.4v2.2h-2.4z", "even"]],
  safe: [["M12 1l9 3.5v6.5c0 5.5-4 10-9 12c-5-2-9-6.5-9-12V4.5zM10.5 6h3v4h4v3h-4v4h-3v-4h-4v-3h4z", "even"]],
  item: [["M12 2l9 5v10l-9 5-9-5V7z", "fill"]],
  // The weapons.
  pistol: [["M2 7h19v4h-9l-1.5 2.5H8L6.5 19H2.5l2-8H2z", "fill"]],
  smg: [["M1 8h21v3.5h-7V14h-3l-1.5 5H7l1.5-5H6v-2.5H1zM15.5 11.5h2.5v7h-2.5z", "fill"]],
  grenade: [["M12 7a7.5 7.5 0 1 1 0 15a7.5 7.5 0 1 1 0-15z", "fill"], ["M10 2.5h4v4h-4zM14 4.5l4-2", "line"]],
};

// ICON_NAMES are the icons there are.
export const ICON_NAMES = Object.keys(ICONS);

const paths = new Map(); // "name/i" -> Path2D

// icon returns an inline SVG element of icon name, size CSS pixels square,
// painted in colour (currentColor: the text's).
export function icon(name, size, colour) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", size);
  svg.setAttribute("height", size);
  svg.setAttribute("class", "icon");
  svg.setAttribute("aria-hidden", "true");
  svg.dataset.icon = name;
  const c = colour || "currentColor";
  for (const [d, how] of ICONS[name] || []) {
    const p = document.createElementNS(ns, "path");
    p.setAttribute("d", d);
    if (how === "line") {
      p.setAttribute("fill", "none");
      p.setAttribute("stroke", c);
      p.setAttribute("stroke-width", "2");
      p.setAttribute("stroke-linecap", "round");
      p.setAttribute("stroke-linejoin", "round");
    } else {
      p.setAttribute("fill", c);
      if (how === "even") p.setAttribute("fill-rule", "evenodd");
    }
    svg.appendChild(p);
  }
  return svg;
}

// withIcon fills element el with icon name before text.
export function withIcon(el, name, text, size) {
  el.replaceChildren(icon(name, size || 16), document.createTextNode(" " + text));
  return el;
}

// drawIcon draws icon name on a canvas centred on (x, y) in the canvas's
// current units, size units square, in colour; a dark outline (halo, in
// the same units) keeps it readable over any ground.
export function drawIcon(ctx, name, x, y, size, colour, halo) {
  const parts = ICONS[name];
  if (!parts) return;
  ctx.save();
  ctx.translate(x - size / 2, y - size / 2);
  ctx.scale(size / 24, size / 24);
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  parts.forEach(([d, how], i) => {
    const key = name + "/" + i;
    let p = paths.get(key);
    if (!p) { p = new Path2D(d); paths.set(key, p); }
    if (halo) {
      ctx.strokeStyle = "rgba(0,0,0,0.75)";
      ctx.lineWidth = 2 + halo * 24 / size;
      ctx.stroke(p);
    }
    if (how === "line") {
      ctx.strokeStyle = colour;
      ctx.lineWidth = 2;
      ctx.stroke(p);
    } else {
      ctx.fillStyle = colour;
      ctx.fill(p, how === "even" ? "evenodd" : "nonzero");
    }
  });
  ctx.restore();
}
