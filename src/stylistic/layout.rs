//! Layout features (paper sections 5.2 and 5.2.3): which control system lays out the page
//! (tabular, layer or linear), which one placed each block, and for blocks in divisions and
//! layers their positioning scheme, position and size relative to the page, stacking level and
//! overlap with other positioned boxes.
//!
//! There is no layout engine here (PARCELS is browser-agnostic): positions come from the CSS
//! `left`/`top`/`width`/`height` of positioned boxes, accumulated through positioned ancestors;
//! percentages of the viewport are taken against a 1024×768 window. Pixel positions and sizes are
//! divided by the page's maximal x and y (the furthest right and bottom edge of any sized box),
//! as the paper does; percentage sizes are kept (divided by 100).

use std::collections::BTreeSet;

use ego_tree::iter::Edge;
use ego_tree::NodeId;
use scraper::Node;

use super::dom;
use crate::css::values::VIEWPORT;
use crate::css::{ComputedStyle, Float, Length, NodeMap, Position, StyledDom};
use crate::page::Page;

/// The `layout` group's feature names and meanings, in column order ([`Layout::features`] writes
/// these, then [`LAYER_NAMES`]).
pub const LAYOUT_NAMES: &[(&str, &str)] = &[
    ("layout.page_tabular", "1 if the page is laid out by tables (at least as many <table> as <div> near the root)"),
    ("layout.page_layer", "1 if the page is laid out by divisions/layers (more <div> and sectioning elements near the root than tables)"),
    ("layout.page_linear", "1 if neither tables nor divisions appear near the root (plain linear flow)"),
    ("layout.table_share", "tables / (tables + divisions) among elements near the root (NaN if none)"),
    ("layout.by_table", "1 if the block's nearest layout ancestor is a table cell"),
    ("layout.by_layer", "1 if the block's nearest layout ancestor is a division/layer (div, section…, or a floated or positioned box)"),
    ("layout.by_linear", "1 if the block has no table cell or division ancestor below <body>"),
];

/// The `layer` group's feature names and meanings, in column order.
pub const LAYER_NAMES: &[(&str, &str)] = &[
    ("layer.relative", "1 if the block's nearest positioned ancestor (itself included) is position:relative"),
    ("layer.absolute", "1 if it is position:absolute"),
    ("layer.fixed", "1 if it is position:fixed"),
    ("layer.float_left", "1 if the block is inside a box floated left"),
    ("layer.float_right", "1 if the block is inside a box floated right"),
    ("layer.x", "left edge of the block's absolutely positioned box / the page's maximal x (NaN if unknown)"),
    ("layer.y", "top edge of that box / the page's maximal y (NaN if unknown)"),
    ("layer.width", "width of the nearest box with a set width: pixels / the page's maximal x, or a percentage / 100 (NaN if none)"),
    ("layer.height", "height of the nearest box with a set height: pixels / the page's maximal y, or a percentage / 100 (NaN if none)"),
    ("layer.z_index", "effective stacking level: z-index of the outermost positioned ancestor that sets one (0 if none)"),
    ("layer.z_rank", "rank of that level among the page's distinct levels, 0 (bottom) to 1 (top); NaN if the page has one level"),
    ("layer.overlaps", "number of other positioned boxes the block's box overlaps (NaN if the block has no known box)"),
    ("layer.above", "1 if the block's box overlaps a box with a lower stacking level (floats over it); NaN if no known box"),
];

/// The page's control system (section 5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LayoutSystem {
    Tabular,
    Layer,
    Linear,
}

/// Division-like elements: the layer system's boxes.
const DIVISIONS: &[&str] = &["div", "section", "article", "header", "footer", "nav", "aside", "main", "layer", "ilayer"];

/// A positioned box (absolute or fixed) in page pixels.
#[derive(Debug, Clone, Copy)]
struct PosBox {
    x: f32,
    y: f32,
    w: Option<f32>,
    h: Option<f32>,
    level: i32,
    /// The enclosing positioned box.
    parent: Option<usize>,
}

/// What the block features need per element.
#[derive(Debug, Clone, Copy)]
struct Geo {
    /// Nearest positioned (non-static) ancestor-or-self's scheme.
    scheme: Position,
    /// Nearest absolute/fixed box.
    pos_box: Option<usize>,
    float: Float,
    width: Length,
    height: Length,
    level: i32,
}

/// Page-wide layout facts.
pub struct Layout {
    pub system: LayoutSystem,
    table_share: f64,
    geo: NodeMap<Geo>,
    boxes: Vec<PosBox>,
    levels: Vec<i32>,
    max_x: f32,
    max_y: f32,
}

impl Layout {
    /// One iterative pass over the DOM. `near_root`: how many levels below `<body>` count as
    /// "near the root" for the page's layout system.
    pub fn new(page: &Page, styled: &StyledDom, near_root: usize) -> Layout {
        let initial = Geo { scheme: Position::Static, pos_box: None, float: Float::None, width: Length::Auto, height: Length::Auto, level: 0 };
        // (geo, offset x, offset y, stacking context set?, depth below body or None)
        let mut stack: Vec<(Geo, f32, f32, bool, Option<usize>)> = Vec::new();
        let mut geo = NodeMap::default();
        let mut boxes = Vec::new();
        let mut levels = BTreeSet::new();
        let (mut tables, mut divs) = (0usize, 0usize);
        let (mut max_x, mut max_y) = (0f32, 0f32);
        for edge in page.html.tree.root().traverse() {
            match edge {
                Edge::Open(node) => {
                    let Node::Element(el) = node.value() else { continue };
                    let parent = stack.last().copied().unwrap_or((initial, 0.0, 0.0, false, None));
                    let below_body = match parent.4 {
                        Some(d) => Some(d + 1),
                        None if el.name() == "body" => Some(0),
                        None => None,
                    };
                    let Some(style) = styled.style(node.id()) else {
                        stack.push((parent.0, parent.1, parent.2, parent.3, below_body));
                        continue;
                    };
                    if let Some(d) = below_body.filter(|&d| (1..=near_root).contains(&d)) {
                        let _ = d;
                        if el.name() == "table" {
                            tables += 1;
                        } else if DIVISIONS.contains(&el.name()) {
                            divs += 1;
                        }
                    }
                    let (g, ox, oy, ctx) = child_geo(style, parent, &mut boxes);
                    if style.displayed {
                        if let Some(w) = style.width.px() {
                            max_x = max_x.max(w + if matches!(style.position, Position::Absolute | Position::Fixed) { ox } else { 0.0 });
                        }
                        if let Some(h) = style.height.px() {
                            max_y = max_y.max(h + if matches!(style.position, Position::Absolute | Position::Fixed) { oy } else { 0.0 });
                        }
                        levels.insert(g.level);
                    }
                    geo.insert(node.id(), g);
                    stack.push((g, ox, oy, ctx, below_body));
                }
                Edge::Close(node) => {
                    if node.value().is_element() {
                        stack.pop();
                    }
                }
            }
        }
        let system = if tables == 0 && divs == 0 {
            LayoutSystem::Linear
        } else if tables >= divs {
            // A tie is nearly always a centring wrapper <div> around a layout table: a page laid
            // out by divisions has more of them than one per table.
            LayoutSystem::Tabular
        } else {
            LayoutSystem::Layer
        };
        let table_share = if tables + divs == 0 { f64::NAN } else { tables as f64 / (tables + divs) as f64 };
        Layout {
            system,
            table_share,
            geo,
            boxes,
            levels: levels.into_iter().collect(),
            max_x: if max_x > 0.0 { max_x } else { VIEWPORT.0 },
            max_y: if max_y > 0.0 { max_y } else { VIEWPORT.1 },
        }
    }

    /// Writes the layout and layer features of a block anchored at `element`.
    pub fn features(&self, page: &Page, styled: &StyledDom, element: Option<NodeId>, out: &mut [f64]) {
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        let placed = element.map_or(LayoutSystem::Linear, |e| placed_by(page, styled, e));
        let g = element.and_then(|e| self.geo.get(&e)).copied();
        let scheme = g.map_or(Position::Static, |g| g.scheme);
        let float = g.map_or(Float::None, |g| g.float);
        let level = g.map_or(0, |g| g.level);
        let pos_box = g.and_then(|g| g.pos_box).and_then(|i| self.boxes.get(i).map(|b| (i, b)));
        let (overlaps, above) = match pos_box {
            Some((i, b)) if b.w.is_some() && b.h.is_some() => {
                let (n, above) = self.overlaps(i);
                (n as f64, flag(above))
            }
            _ => (f64::NAN, f64::NAN),
        };
        let z_rank = match self.levels.len() {
            0 | 1 => f64::NAN,
            n => self.levels.iter().position(|&l| l == level).map_or(f64::NAN, |p| p as f64 / (n - 1) as f64),
        };
        let values = [
            flag(self.system == LayoutSystem::Tabular),
            flag(self.system == LayoutSystem::Layer),
            flag(self.system == LayoutSystem::Linear),
            self.table_share,
            flag(placed == LayoutSystem::Tabular),
            flag(placed == LayoutSystem::Layer),
            flag(placed == LayoutSystem::Linear),
            flag(scheme == Position::Relative),
            flag(scheme == Position::Absolute),
            flag(scheme == Position::Fixed),
            flag(float == Float::Left),
            flag(float == Float::Right),
            pos_box.map_or(f64::NAN, |(_, b)| f64::from(b.x / self.max_x)),
            pos_box.map_or(f64::NAN, |(_, b)| f64::from(b.y / self.max_y)),
            g.map_or(f64::NAN, |g| relative(g.width, self.max_x)),
            g.map_or(f64::NAN, |g| relative(g.height, self.max_y)),
            f64::from(level),
            z_rank,
            overlaps,
            above,
        ];
        out.copy_from_slice(&values);
    }

    /// How many other boxes (not its own ancestors or descendants) box `i` overlaps, and whether
    /// one of them has a lower stacking level.
    fn overlaps(&self, i: usize) -> (usize, bool) {
        let me = self.boxes[i];
        let (Some(w), Some(h)) = (me.w, me.h) else { return (0, false) };
        let mut n = 0;
        let mut above = false;
        for (j, other) in self.boxes.iter().enumerate() {
            let (Some(ow), Some(oh)) = (other.w, other.h) else { continue };
            if j == i || self.nested(i, j) || self.nested(j, i) {
                continue;
            }
            let apart = me.x + w <= other.x || other.x + ow <= me.x || me.y + h <= other.y || other.y + oh <= me.y;
            if !apart {
                n += 1;
                above |= other.level < me.level;
            }
        }
        (n, above)
    }

    /// Whether box `inner` lies inside box `outer`.
    fn nested(&self, inner: usize, outer: usize) -> bool {
        let mut cur = self.boxes.get(inner).and_then(|b| b.parent);
        // Box parents always have smaller indices, so this walk ends.
        while let Some(p) = cur {
            if p == outer {
                return true;
            }
            cur = self.boxes.get(p).and_then(|b| b.parent);
        }
        false
    }
}

/// A child's geometry from its style and its parent's frame; returns the geometry, the offset
/// its own children are placed from, and whether it is inside a stacking context with a level.
fn child_geo(style: &ComputedStyle, parent: (Geo, f32, f32, bool, Option<usize>), boxes: &mut Vec<PosBox>) -> (Geo, f32, f32, bool) {
    let (pg, px, py, in_context, _) = parent;
    let mut g = pg;
    let (mut ox, mut oy) = (px, py);
    let mut ctx = in_context;
    if style.position != Position::Static {
        g.scheme = style.position;
        if !in_context {
            if let Some(z) = style.z_index {
                g.level = z;
                ctx = true;
            }
        }
        let dx = offset(style.left, VIEWPORT.0);
        let dy = offset(style.top, VIEWPORT.1);
        match style.position {
            Position::Absolute | Position::Fixed => {
                let (bx, by) = if style.position == Position::Fixed { (dx, dy) } else { (px + dx, py + dy) };
                boxes.push(PosBox { x: bx, y: by, w: size(style.width, VIEWPORT.0), h: size(style.height, VIEWPORT.1), level: g.level, parent: pg.pos_box });
                g.pos_box = Some(boxes.len() - 1);
                (ox, oy) = (bx, by);
            }
            _ => {
                ox += dx;
                oy += dy;
            }
        }
    }
    if style.float != Float::None {
        g.float = style.float;
    }
    if style.width != Length::Auto {
        g.width = style.width;
    }
    if style.height != Length::Auto {
        g.height = style.height;
    }
    (g, ox, oy, ctx)
}

fn offset(l: Length, viewport: f32) -> f32 {
    match l {
        Length::Px(v) => v,
        Length::Percent(p) => p / 100.0 * viewport,
        Length::Auto => 0.0,
    }
}

fn size(l: Length, viewport: f32) -> Option<f32> {
    match l {
        Length::Px(v) => Some(v),
        Length::Percent(p) => Some(p / 100.0 * viewport),
        Length::Auto => None,
    }
}

fn relative(l: Length, max: f32) -> f64 {
    match l {
        Length::Px(v) => f64::from(v / max),
        Length::Percent(p) => f64::from(p / 100.0),
        Length::Auto => f64::NAN,
    }
}

/// Which subsystem placed the block: its nearest table cell or division ancestor below `<body>`.
fn placed_by(page: &Page, styled: &StyledDom, element: NodeId) -> LayoutSystem {
    for n in dom::self_and_ancestors(page, element) {
        match dom::tag(&n) {
            Some("td" | "th") => return LayoutSystem::Tabular,
            Some("body" | "html") => return LayoutSystem::Linear,
            Some(t) if DIVISIONS.contains(&t) => return LayoutSystem::Layer,
            _ => {}
        }
        if styled.style(n.id()).is_some_and(|s| s.float != Float::None || s.position != Position::Static) {
            return LayoutSystem::Layer;
        }
    }
    LayoutSystem::Linear
}
