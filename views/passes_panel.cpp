// SPDX-License-Identifier: GPL-3.0-or-later
// The passes panel: a resource table and the selected pass's `!!ARBfp1.0` listing.
#include "views/passes_panel.h"

#include <algorithm>
#include <iterator>

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBlock>
#include <QVBoxLayout>

#include "core/partition/registry.h"
#include "views/algorithm_box.h"
#include "views/pass_colors.h"

namespace passlab::views {

namespace {

QString limit_text(int used, int limit) {
  return limit == partition::kUnlimited ? QString::number(used) : QString("%1/%2").arg(used).arg(limit);
}

}  // namespace

PassesPanel::PassesPanel(QWidget* parent) : QWidget(parent) {
  algorithm_ = new QComboBox(this);
  fill_algorithm_box(algorithm_);
  algorithm_->setToolTip(tr("Which partition the passes panel and the graphs show"));
  connect(algorithm_, &QComboBox::currentIndexChanged, this, [this] {
    refill();
    emit algorithm_changed(algorithm());
  });
  summary_ = new StatusLabel(this, 1, 40);
  table_ = new QTableWidget(this);
  table_->setColumnCount(10);
  table_->setHorizontalHeaderLabels({tr("Pass"), tr("Root"), tr("Ops"), tr("Regs"), tr("Tex"), tr("Interp"),
                                     tr("Restores"), tr("Fetches"), tr("Arith"), tr("Fits")});
  table_->setToolTip(tr("Per-pass resources as in the RDS paper's Table 5; used/limit"));
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  // Columns fit their contents once per result (ResizeToContents would measure every cell on each
  // layout of the window).
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) {
    show_listing(row);
    const auto* run = current_run();
    if (!muting_ && run && row >= 0 && row < static_cast<int>(run->partition.passes.size()))
      emit pass_selected(run->partition.passes[row].members);
  });
  listing_ = new QPlainTextEdit(this);
  listing_->setReadOnly(true);
  listing_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  listing_->setLineWrapMode(QPlainTextEdit::NoWrap);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(listing_);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Algorithm:"), this));
  top->addWidget(algorithm_);
  top->addWidget(summary_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(split, 1);
}

QString PassesPanel::algorithm() const { return algorithm_->currentData().toString(); }

void PassesPanel::set_algorithm(const QString& algorithm) {
  int i = algorithm_->findData(algorithm);
  if (i >= 0) algorithm_->setCurrentIndex(i);
}

void PassesPanel::show_snapshot(session::SnapshotPtr snapshot) {
  snapshot_ = std::move(snapshot);
  extras_.clear();
  if (snapshot_) enable_algorithms(algorithm_, snapshot_->request.target.limits);
  refill();
}

void PassesPanel::set_extra_run(const QString& algorithm, std::shared_ptr<const session::AlgorithmRun> run) {
  extras_.set(algorithm, std::move(run));
  refill();
}

const session::AlgorithmRun* PassesPanel::current_run() const {
  const QString a = algorithm();
  if (const auto* extra = extras_.find(a)) return extra;
  return snapshot_ ? snapshot_->run(a.toStdString()) : nullptr;
}

int PassesPanel::pass_count() const { return table_->rowCount(); }
QString PassesPanel::listing_text() const { return listing_->toPlainText(); }

void PassesPanel::set_stale(bool stale) {
  table_->setEnabled(!stale);
  if (stale) summary_->set_text(summary_->text().section(" — ", 0, 0) + tr(" — stale: showing the last good result"));
}

void PassesPanel::refill() {
  muting_ = true;
  const int row_before = table_->currentRow();
  const auto* run = current_run();
  if (!run) {
    table_->setRowCount(0);
    listing_->clear();
    const partition::Algorithm* a = partition::find_algorithm(algorithm().toStdString());
    summary_->set_text(algorithm() == "yours" ? tr("Yours: click nodes of the DAG to save their values")
                       : a && !a->every_edit ? tr("Run the %1 search from the Compare panel").arg(QString::fromUtf8(a->label.data(), static_cast<int>(a->label.size())).toLower())
                                             : tr("No partition (the shader has errors)"));
    muting_ = false;
    return;
  }
  const auto& part = run->partition;
  const auto& lim = snapshot_->request.target.limits;
  int unfit = 0;
  for (const auto& p : part.passes) unfit += !p.failure.empty();
  summary_->set_text(tr("%1 passes, %2 on %3 (%4)%5")
                        .arg(part.passes.size())
                        .arg(part.valid ? tr("cost %1").arg(part.cost, 0, 'f', 2)
                                        : unfit == 1 ? tr("1 does not fit") : tr("%1 do not fit").arg(unfit))
                        .arg(QString::fromStdString(snapshot_->request.target.name),
                             QString::fromStdString(snapshot_->request.model.name),
                             run->problems.empty() ? QString() : tr(" — check failed: %1").arg(QString::fromStdString(run->problems.front()))));
  // Rows are updated in place: after most edits the passes are the same and nothing changes
  // (rebuilding hundreds of items and measuring the columns took milliseconds on every edit).
  const int rows = static_cast<int>(part.passes.size());
  table_->setRowCount(rows);
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  bool changed = false;
  for (int i = 0; i < rows; ++i) {
    const auto& p = part.passes[static_cast<std::size_t>(i)];
    const auto& r = p.resources;
    const QString cells[] = {QString::number(i + 1),
                             QString("n%1 %2%3")
                                 .arg(p.root)
                                 .arg(QString::fromStdString(snapshot_->problem.labels[p.root]))
                                 .arg(p.outputs.size() == 2   ? tr(" (+1 more output)")
                                      : p.outputs.size() > 2 ? tr(" (+%1 more outputs)").arg(p.outputs.size() - 1)
                                                             : QString()),
                             limit_text(r.operations, lim.operations),
                             limit_text(r.registers, lim.registers),
                             limit_text(r.textures, lim.textures),
                             limit_text(r.interpolants, lim.interpolants),
                             QString::number(r.restores),
                             QString::number(r.texture_fetches),
                             QString::number(r.arithmetic),
                             p.failure.empty() ? tr("yes") : QString::fromStdString(p.failure)};
    for (int c = 0; c < static_cast<int>(std::size(cells)); ++c) {
      QTableWidgetItem* item = table_->item(i, c);
      if (!item) {
        item = new QTableWidgetItem(cells[c]);
        if (c >= 2 && c <= 8) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        table_->setItem(i, c, item);
        changed = true;
      } else if (item->text() != cells[c]) {
        item->setText(cells[c]);
        changed = true;
      }
      if (c == 0) {
        const QBrush colour(pass_color(i, dark));
        if (item->background() != colour) item->setBackground(colour);
      }
      // A limit the pass breaks (a partition made by hand) stands out in red.
      const int used[] = {r.operations, r.registers, r.textures, r.interpolants};
      const int limit[] = {lim.operations, lim.registers, lim.textures, lim.interpolants};
      const bool over = (c >= 2 && c <= 5 && limit[c - 2] != partition::kUnlimited && used[c - 2] > limit[c - 2]) ||
                        (c == 9 && !p.failure.empty());
      const QBrush ink = over ? QBrush(dark ? QColor(255, 120, 110) : QColor(190, 20, 20)) : QBrush();
      if (item->foreground() != ink) item->setForeground(ink);
    }
  }
  if (changed) table_->resizeColumnsToContents();
  muting_ = false;
  // The pass the user was looking at stays chosen when it still exists.
  if (rows > 0) table_->setCurrentCell(row_before >= 0 && row_before < rows ? row_before : 0, table_->currentColumn() >= 0 ? table_->currentColumn() : 0);
  show_listing(table_->currentRow());
}

void PassesPanel::show_listing(int pass) {
  const auto* run = current_run();
  if (!run || pass < 0 || pass >= static_cast<int>(run->listings.size())) {
    listing_->clear();
    return;
  }
  listing_->setPlainText(QString::fromStdString(run->listings[pass]));
  // Mark the lines of the highlighted nodes.
  QList<QTextEdit::ExtraSelection> marks;
  const auto& lines = run->listing_nodes[pass];
  for (std::size_t k = 0; k < lines.size(); ++k)
    if (std::find(highlighted_.begin(), highlighted_.end(), lines[k]) != highlighted_.end()) {
      QTextEdit::ExtraSelection sel;
      sel.cursor = QTextCursor(listing_->document()->findBlockByNumber(static_cast<int>(k)));
      sel.format.setBackground(QColor(60, 150, 240, 70));
      sel.format.setProperty(QTextFormat::FullWidthSelection, true);
      marks.push_back(sel);
    }
  listing_->setExtraSelections(marks);
  if (!marks.isEmpty()) listing_->setTextCursor(marks.front().cursor);
}

void PassesPanel::select_nodes(const std::vector<std::uint32_t>& ids) {
  highlighted_ = ids;
  const auto* run = current_run();
  if (!run) return;
  int pass = -1;
  for (auto id : ids) {
    for (std::size_t i = 0; i < run->partition.passes.size() && pass < 0; ++i) {
      const auto& m = run->partition.passes[i].members;
      if (std::binary_search(m.begin(), m.end(), id)) pass = static_cast<int>(i);
    }
    if (pass >= 0) break;
  }
  muting_ = true;
  if (pass >= 0) table_->setCurrentCell(pass, 0);
  muting_ = false;
  show_listing(table_->currentRow());
}

}  // namespace passlab::views
