//! Table features (paper section 5.2.2, after Hurst): where a block's cell sits in a real table
//! grid, how the table sits in its parent table, header guesses and data-type grouping.
//!
//! The grid follows the HTML table model: rows are the `<tr>` of the table's own row groups (not
//! of nested tables), each cell takes the first free slot of its row and covers `rowspan` ×
//! `colspan` slots (`rowspan=0` runs to the end of the table). Spans are capped at
//! [`MAX_SPAN`] so a hostile `colspan=100000` cannot allocate a huge grid, and once a table's
//! cells cover [`MAX_GRID_SLOTS`] slots its further cells span one slot each, so many large
//! spans cannot either.
//!
//! Every feature takes constant time per cell (spans bounded): the same-type shares read counts
//! per grid line and the neighbours are looked up in per-line lists, so a table costs time in
//! proportion to its cells, which [`MAX_ELEMENTS`](crate::page::MAX_ELEMENTS) bounds (a 300 × 300
//! table took 80 s when every cell scanned the whole table).

use ego_tree::{NodeId, NodeRef};
use scraper::Node;

use super::dom::{self, word_profile};
use crate::css::{NodeMap, StyledDom};
use crate::page::Page;

/// Largest rowspan or colspan honoured (real layout tables stay far below it).
pub const MAX_SPAN: usize = 100;

/// Most grid slots a table's cells may cover with their spans (a 2,000 × 2,000 grid); cells
/// beyond it count as one slot each. Spans alone are capped at [`MAX_SPAN`], but 50,000 cells of
/// `colspan=100 rowspan=100` (a 1.3 MB page) would still fill half a billion slots: with 20,000
/// of them the grid took 410 MB and 1.6 s before this bound. Real tables stay far below it (a
/// 300 × 300 table is 90,000 slots).
pub const MAX_GRID_SLOTS: usize = 4_000_000;

/// Feature names and meanings, in row order.
pub const NAMES: &[(&str, &str)] = &[
    ("table.in_table", "1 if the block lies in a table cell, else 0 (all other table.* are NaN then)"),
    ("table.row", "grid row of the block's cell (0-based, top-left slot)"),
    ("table.col", "grid column of the block's cell (0-based, top-left slot)"),
    ("table.row_rel", "relative vertical position of the cell's centre in its table: (row + rowspan/2) / rows"),
    ("table.col_rel", "relative horizontal position of the cell's centre: (col + colspan/2) / cols"),
    ("table.rows", "rows of the cell's table grid"),
    ("table.cols", "columns of the cell's table grid"),
    ("table.rowspan", "rows the cell spans"),
    ("table.colspan", "columns the cell spans"),
    ("table.depth", "nesting depth of the cell's table (1 = outermost table)"),
    ("table.first_in_row", "1 if the cell starts at the grid's first column"),
    ("table.last_in_row", "1 if the cell ends at the grid's last column"),
    ("table.first_in_col", "1 if the cell starts at the grid's first row"),
    ("table.last_in_col", "1 if the cell ends at the grid's last row"),
    ("table.row_cells", "number of cells in the cell's <tr> (cell flow: how many siblings it is read with)"),
    ("table.parent_row_rel", "for a nested table: row_rel of the parent-table cell holding it (NaN if outermost)"),
    ("table.parent_col_rel", "for a nested table: col_rel of the parent-table cell holding it (NaN if outermost)"),
    ("table.th", "1 if the cell is a <th> or lies in <thead>"),
    ("table.header_row", "1 if the cell's row looks like a header: all <th>, or the first row styled unlike the second (bold or background)"),
    ("table.header_col", "1 if the cell's column looks like a header: all <th>, or the first column styled unlike the second"),
    ("table.numeric", "1 if every word of the cell is a number"),
    ("table.word_density", "words of the cell / words of the page"),
    ("table.row_same_type", "share of the other cells in the same grid row with the same data type (NaN if none)"),
    ("table.col_same_type", "share of the other cells in the same grid column with the same data type (NaN if none)"),
    ("table.neighbours_same_type", "share of the adjacent cells (left, right, above, below in the grid) with the same data type (NaN if none)"),
];

/// A cell's data type for Hurst's grouping: empty, images only, numeric, or words bucketed by
/// ⌊log2(1 + words)⌋ (so cells of 1 and 2 words match, as do 8 and 12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DataType {
    Empty,
    Images,
    Numeric,
    Words(u32),
}

#[derive(Debug, Clone)]
struct Cell {
    node: NodeId,
    row: usize,
    col: usize,
    rowspan: usize,
    colspan: usize,
    th: bool,
    /// Cells in the same `<tr>`.
    tr_cells: usize,
    words: usize,
    dtype: DataType,
    /// Whether the cell's first text is bold, and the background behind it.
    bold: bool,
    background: [u8; 4],
}

/// One table's grid.
#[derive(Debug)]
struct Grid {
    rows: usize,
    cols: usize,
    cells: Vec<Cell>,
    /// Table nesting depth (1 = outermost).
    depth: usize,
    /// The cell of the parent table that holds this table.
    parent_cell: Option<NodeId>,
    header_rows: Vec<bool>,
    header_col: bool,
    /// Per grid row, the data types of the cells covering it and how many of each.
    row_types: Vec<Vec<(DataType, usize)>>,
    /// Per grid column, the same.
    col_types: Vec<Vec<(DataType, usize)>>,
    /// Cells by the column they start at / end before (`col + colspan`), in row order; and by
    /// the row they start at / end before, in column order: a cell's neighbours are found
    /// among a few of them, not among all the table's cells.
    col_starts: Vec<Vec<usize>>,
    col_ends: Vec<Vec<usize>>,
    row_starts: Vec<Vec<usize>>,
    row_ends: Vec<Vec<usize>>,
}

/// Adds one cell of type `t` to a line's type counts.
fn count_type(counts: &mut Vec<(DataType, usize)>, t: DataType) {
    match counts.iter_mut().find(|(d, _)| *d == t) {
        Some((_, n)) => *n += 1,
        None => counts.push((t, 1)),
    }
}

/// Cells of a line and how many of them have type `t`.
fn line_counts(counts: &[(DataType, usize)], t: DataType) -> (usize, usize) {
    let total = counts.iter().map(|(_, n)| n).sum();
    let same = counts.iter().find(|(d, _)| *d == t).map_or(0, |(_, n)| *n);
    (total, same)
}

/// Table grids built on demand, one per table that holds a block.
pub struct Tables<'p> {
    page: &'p Page,
    styled: &'p StyledDom,
    grids: NodeMap<Grid>,
    /// Cell node → (table node, index in its grid's cells).
    cell_index: NodeMap<(NodeId, usize)>,
    page_words: usize,
}

impl<'p> Tables<'p> {
    pub fn new(page: &'p Page, styled: &'p StyledDom, page_words: usize) -> Self {
        Tables { page, styled, grids: NodeMap::default(), cell_index: NodeMap::default(), page_words }
    }

    /// Writes the table features of a block whose anchor element is `element`.
    pub fn features(&mut self, element: Option<NodeId>, out: &mut [f64]) {
        out.fill(f64::NAN);
        out[0] = 0.0;
        let Some(cell_node) = element.and_then(|e| self.enclosing_cell(e)) else { return };
        let Some((table, index)) = self.locate(cell_node) else { return };
        let parent_cell = self.grids.get(&table).and_then(|g| g.parent_cell);
        let parent_rel = parent_cell.and_then(|pc| self.locate(pc)).and_then(|(pt, pi)| {
            let g = self.grids.get(&pt)?;
            Some(rel(g.cells.get(pi)?, g))
        });
        let Some(grid) = self.grids.get(&table) else { return };
        let Some(cell) = grid.cells.get(index) else { return };
        let (row_rel, col_rel) = rel(cell, grid);
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        let values = [
            1.0,
            cell.row as f64,
            cell.col as f64,
            row_rel,
            col_rel,
            grid.rows as f64,
            grid.cols as f64,
            cell.rowspan as f64,
            cell.colspan as f64,
            grid.depth as f64,
            flag(cell.col == 0),
            flag(cell.col + cell.colspan >= grid.cols),
            flag(cell.row == 0),
            flag(cell.row + cell.rowspan >= grid.rows),
            cell.tr_cells as f64,
            parent_rel.map_or(f64::NAN, |r| r.0),
            parent_rel.map_or(f64::NAN, |r| r.1),
            flag(cell.th),
            flag(grid.header_rows.get(cell.row).copied().unwrap_or(false)),
            flag(grid.header_col && cell.col == 0),
            flag(cell.dtype == DataType::Numeric),
            if self.page_words > 0 { cell.words as f64 / self.page_words as f64 } else { f64::NAN },
            same_type_share(&grid.row_types[cell.row], cell.dtype),
            same_type_share(&grid.col_types[cell.col], cell.dtype),
            neighbours_same_type(grid, index),
        ];
        out.copy_from_slice(&values);
    }

    /// The nearest `td`/`th` containing the element (itself included).
    fn enclosing_cell(&self, element: NodeId) -> Option<NodeId> {
        dom::self_and_ancestors(self.page, element).find(|n| matches!(dom::tag(n), Some("td" | "th"))).map(|n| n.id())
    }

    /// The grid holding a cell, building it (and its ancestors' grids) when first needed.
    fn locate(&mut self, cell: NodeId) -> Option<(NodeId, usize)> {
        if let Some(&found) = self.cell_index.get(&cell) {
            return Some(found);
        }
        let table = dom::self_and_ancestors(self.page, cell).find(|n| dom::tag(n) == Some("table"))?;
        let table_id = table.id();
        if !self.grids.contains_key(&table_id) {
            let grid = self.build(table);
            for (i, c) in grid.cells.iter().enumerate() {
                self.cell_index.insert(c.node, (table_id, i));
            }
            self.grids.insert(table_id, grid);
        }
        self.cell_index.get(&cell).copied()
    }

    fn build(&self, table: NodeRef<'p, Node>) -> Grid {
        let ancestors_tables = table.ancestors().filter(|n| dom::tag(n) == Some("table")).count();
        let parent_cell = table.ancestors().find(|n| matches!(dom::tag(n), Some("td" | "th"))).map(|n| n.id());
        // Rows: the table's own <tr>s, directly or in its row groups.
        let mut rows: Vec<(NodeRef<Node>, bool)> = Vec::new();
        for child in table.children() {
            match dom::tag(&child) {
                Some("tr") => rows.push((child, false)),
                Some(group @ ("thead" | "tbody" | "tfoot")) => {
                    rows.extend(child.children().filter(|r| dom::tag(r) == Some("tr")).map(|r| (r, group == "thead")))
                }
                _ => {}
            }
        }
        let n_rows = rows.len();
        let mut occupied: Vec<Vec<bool>> = vec![Vec::new(); n_rows];
        let mut cells = Vec::new();
        let mut cols = 0;
        let mut slots = 0usize;
        for (r, (tr, in_thead)) in rows.iter().enumerate() {
            let tds: Vec<NodeRef<Node>> = tr.children().filter(|c| matches!(dom::tag(c), Some("td" | "th"))).collect();
            let tr_cells = tds.len();
            let mut c = 0;
            for td in tds {
                while occupied[r].get(c).copied().unwrap_or(false) {
                    c += 1;
                }
                let el = td.value().as_element();
                let colspan = el.and_then(|e| e.attr("colspan")).and_then(span).unwrap_or(1).clamp(1, MAX_SPAN);
                let rowspan = match el.and_then(|e| e.attr("rowspan")).and_then(span) {
                    Some(0) => n_rows - r,
                    Some(n) => n.min(n_rows - r),
                    None => 1,
                }
                .clamp(1, MAX_SPAN);
                let (rowspan, colspan) = if slots + rowspan * colspan > MAX_GRID_SLOTS { (1, 1) } else { (rowspan, colspan) };
                slots += rowspan * colspan;
                for row in occupied.iter_mut().skip(r).take(rowspan) {
                    if row.len() < c + colspan {
                        row.resize(c + colspan, false);
                    }
                    row[c..c + colspan].fill(true);
                }
                cols = cols.max(c + colspan);
                cells.push(Cell { row: r, col: c, rowspan, colspan, ..self.cell(td, *in_thead, tr_cells) });
                c += colspan;
            }
        }
        let header_rows = header_rows(&cells, n_rows);
        let header_col = header_col(&cells, n_rows, cols);
        let mut row_types = vec![Vec::new(); n_rows];
        let mut col_types = vec![Vec::new(); cols];
        let (mut col_starts, mut col_ends) = (vec![Vec::new(); cols + 1], vec![Vec::new(); cols + 1]);
        let (mut row_starts, mut row_ends) = (vec![Vec::new(); n_rows + 1], vec![Vec::new(); n_rows + MAX_SPAN + 1]);
        for (i, c) in cells.iter().enumerate() {
            for counts in &mut row_types[c.row..(c.row + c.rowspan).min(n_rows)] {
                count_type(counts, c.dtype);
            }
            for counts in &mut col_types[c.col..c.col + c.colspan] {
                count_type(counts, c.dtype);
            }
            col_starts[c.col].push(i);
            col_ends[c.col + c.colspan].push(i);
            row_starts[c.row].push(i);
            row_ends[c.row + c.rowspan].push(i);
        }
        // Cells are pushed row by row, left to right: the column lists are in row order, the
        // row lists are put in column order.
        for list in row_starts.iter_mut().chain(row_ends.iter_mut()) {
            list.sort_by_key(|&i| cells[i].col);
        }
        Grid {
            rows: n_rows,
            cols,
            cells,
            depth: ancestors_tables + 1,
            parent_cell,
            header_rows,
            header_col,
            row_types,
            col_types,
            col_starts,
            col_ends,
            row_starts,
            row_ends,
        }
    }

    /// A cell's content and style; its grid slot is filled in by the caller.
    fn cell(&self, td: NodeRef<Node>, in_thead: bool, tr_cells: usize) -> Cell {
        let (mut words, mut numeric) = (0, true);
        let mut images = 0;
        let mut first_text_parent = None;
        for n in td.descendants() {
            match n.value() {
                Node::Text(t) => {
                    if first_text_parent.is_none() && !t.trim().is_empty() {
                        first_text_parent = n.parent().map(|p| p.id());
                    }
                    let (w, n) = word_profile(t);
                    words += w;
                    numeric &= n || w == 0;
                }
                Node::Element(e) if e.name() == "img" => images += 1,
                _ => {}
            }
        }
        let numeric = numeric && words > 0;
        let dtype = match (words, numeric, images) {
            (0, _, 0) => DataType::Empty,
            (0, _, _) => DataType::Images,
            (_, true, _) => DataType::Numeric,
            (w, false, _) => DataType::Words((w as u32 + 1).ilog2()),
        };
        let style = first_text_parent.and_then(|p| self.styled.style(p)).or_else(|| self.styled.style(td.id()));
        let th = in_thead || dom::tag(&td) == Some("th");
        Cell {
            node: td.id(),
            row: 0,
            col: 0,
            rowspan: 1,
            colspan: 1,
            th,
            tr_cells,
            words,
            dtype,
            bold: style.is_some_and(|s| s.is_bold()),
            background: style.map_or([0; 4], |s| s.effective_background.0),
        }
    }
}

/// `rowspan`/`colspan`: leading digits (the HTML "rules for parsing non-negative integers").
fn span(v: &str) -> Option<usize> {
    let digits: String = v.trim().chars().take_while(char::is_ascii_digit).take(6).collect();
    digits.parse().ok()
}

fn rel(cell: &Cell, grid: &Grid) -> (f64, f64) {
    let rows = grid.rows.max(1) as f64;
    let cols = grid.cols.max(1) as f64;
    ((cell.row as f64 + cell.rowspan as f64 / 2.0) / rows, (cell.col as f64 + cell.colspan as f64 / 2.0) / cols)
}

/// Share of the other cells of a grid line (every cell covering the row or column, the cell
/// itself included in `counts`) with type `t`; NaN if the cell is alone in it.
fn same_type_share(counts: &[(DataType, usize)], t: DataType) -> f64 {
    let (total, same) = line_counts(counts, t);
    let others = total.saturating_sub(1);
    if others == 0 {
        f64::NAN
    } else {
        same.saturating_sub(1) as f64 / others as f64
    }
}

/// Share of the cells next to cell `index` (through its edges, spans included) with its type.
/// The cells beside it end at its column or start after its last one, and overlap its rows:
/// they are looked up in the column lists by row (spans are at most [`MAX_SPAN`], so a cell
/// overlapping rows `row..row + rowspan` starts at most `MAX_SPAN - 1` rows above); the cells
/// above and below likewise in the row lists by column.
fn neighbours_same_type(grid: &Grid, index: usize) -> f64 {
    let Some(me) = grid.cells.get(index) else { return f64::NAN };
    let rows_overlap = |c: &Cell| c.row < me.row + me.rowspan && me.row < c.row + c.rowspan;
    let cols_overlap = |c: &Cell| c.col < me.col + me.colspan && me.col < c.col + c.colspan;
    fn list(lists: &[Vec<usize>], at: usize) -> &[usize] {
        lists.get(at).map_or(&[], |l| &l[..])
    }
    // The cells of a list sorted by `key` with `lo <= key < hi`.
    let window = |l: &[usize], key: &dyn Fn(&Cell) -> usize, lo: usize, hi: usize| -> std::ops::Range<usize> {
        let a = l.partition_point(|&i| key(&grid.cells[i]) < lo);
        let b = l.partition_point(|&i| key(&grid.cells[i]) < hi);
        a..b.max(a)
    };
    let (mut same, mut others) = (0usize, 0usize);
    let mut count = |c: &Cell| {
        others += 1;
        same += usize::from(c.dtype == me.dtype);
    };
    let row_lo = (me.row + 1).saturating_sub(MAX_SPAN);
    let col_lo = (me.col + 1).saturating_sub(MAX_SPAN);
    for l in [list(&grid.col_ends, me.col), list(&grid.col_starts, me.col + me.colspan)] {
        for &i in &l[window(l, &|c| c.row, row_lo, me.row + me.rowspan)] {
            let c = &grid.cells[i];
            if i != index && rows_overlap(c) && (c.col + c.colspan == me.col || me.col + me.colspan == c.col) {
                count(c);
            }
        }
    }
    for l in [list(&grid.row_ends, me.row), list(&grid.row_starts, me.row + me.rowspan)] {
        for &i in &l[window(l, &|c| c.col, col_lo, me.col + me.colspan)] {
            let c = &grid.cells[i];
            if i != index && cols_overlap(c) && (c.row + c.rowspan == me.row || me.row + me.rowspan == c.row) {
                count(c);
            }
        }
    }
    if others == 0 {
        f64::NAN
    } else {
        same as f64 / others as f64
    }
}

/// Header rows: a row whose cells are all `<th>`; or the first row of a table with at least
/// two rows whose cells are all bold while the second row's are not, or whose background
/// differs from every second-row cell's.
fn header_rows(cells: &[Cell], rows: usize) -> Vec<bool> {
    // Per row: whether it has a cell, and whether all its cells are `<th>`.
    let mut seen = vec![(false, true); rows];
    for c in cells {
        if let Some((any, all_th)) = seen.get_mut(c.row) {
            *any = true;
            *all_th &= c.th;
        }
    }
    let mut out: Vec<bool> = seen.iter().map(|&(any, all_th)| any && all_th).collect();
    if rows >= 2 && !out[0] {
        let first: Vec<&Cell> = cells.iter().filter(|c| c.row == 0).collect();
        let second: Vec<&Cell> = cells.iter().filter(|c| c.row == 1).collect();
        out[0] = styled_apart(&first, &second);
    }
    out
}

/// The header column guess, as [`header_rows`] for column 0 against column 1.
fn header_col(cells: &[Cell], rows: usize, cols: usize) -> bool {
    if cols < 2 {
        return false;
    }
    let first: Vec<&Cell> = cells.iter().filter(|c| c.col == 0).collect();
    let second: Vec<&Cell> = cells.iter().filter(|c| c.col == 1).collect();
    if !first.is_empty() && first.iter().all(|c| c.th) {
        return true;
    }
    rows >= 2 && styled_apart(&first, &second)
}

fn styled_apart(a: &[&Cell], b: &[&Cell]) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let all_bold = |cs: &[&Cell]| cs.iter().filter(|c| c.words > 0).all(|c| c.bold) && cs.iter().any(|c| c.words > 0);
    let bold_apart = all_bold(a) && !b.iter().any(|c| c.bold);
    let b_backgrounds: std::collections::HashSet<[u8; 4]> = b.iter().map(|y| y.background).collect();
    let bg_apart = a.iter().all(|x| !b_backgrounds.contains(&x.background));
    bold_apart || bg_apart
}
