// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/decoupled.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <numeric>
#include <thread>

#include <fmt/format.h>

#include "core/sim/draw_list.h"
#include "core/sim/hardware_model.h"
#include "core/sim/memory.h"
#include "core/sim/morton.h"
#include "core/sim/parallel.h"
#include "core/sim/reference_view.h"
#include "core/sim/screen_derivatives.h"
#include "core/sim/stochastic.h"

namespace passlab::sim {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

constexpr std::uint32_t kNone = 0xffffffffu;

constexpr int kTile = 32;                 // traversal tiles and per-tile caches
constexpr long kMaxSamples = 1L << 27;    // visibility samples a frame may have (8 bytes each)
constexpr float kCocPerStep = 4;          // adaptive rate: the grid spacing is the smallest CoC over this
constexpr int kShadeChunk = 1024;         // runs one worker shades through every pass (its F-buffer window)

// A shading run: one shader invocation at a point of a triangle.
struct Run {
  std::uint32_t triangle = 0;  // in its batch
  float b1 = 0, b2 = 0;        // barycentrics of the point
  float gx = 0, gy = 0;        // the point on screen from the reference view (NaN: no view)
  float step = 1;              // the shading grid's spacing in pixels
};

// Bilinear reconstruction: the four runs around a sample and its place between them.
struct Tap {
  std::array<std::uint32_t, 4> run{};
  float fx = 0, fy = 0;
};

// A covered sample of a triangle, before the depth test.
struct Covered {
  std::uint32_t sample;  // (y * width + x) * spp + k
  float z, b1, b2;
  float sx, sy;          // where its material point is on screen from the reference view
  std::uint16_t x, y;    // its pixel (so the ordered stage divides nothing)
  std::int32_t ix = 0, iy = 0;  // its cell of the shading grid (nearest reconstruction; MSAA: its pixel)
};

// A piece of a triangle's traversal: its samples in one 32 x 32 tile.
struct Unit {
  std::uint32_t triangle;
  std::uint16_t tx, ty;
};


}  // namespace

namespace {

class DecoupledRenderer {
 public:
  DecoupledRenderer(const Scene& scene, const DecoupledOptions& o, DecoupledStats& stats, int width, int height, int threads)
      : scene_(scene), opt_(o), stats_(stats), width_(width), height_(height), spp_(o.spp), threads_(threads), pattern_(o.spp, o.seed, o.accumulate) {
    cam_.width = width;
    cam_.height = height;
    cam_.focal = Projection{width, height, scene.fov_degrees, 1e-3f}.focal();
    cam_.aperture = scene.aperture * o.blur;
    cam_.focus = scene.focus;
    const float span = (scene.shutter[1] - scene.shutter[0]) * o.blur;
    cam_.shutter0 = scene.shutter[0];
    cam_.shutter1 = scene.shutter[0] + span;
    inv_focal_ = 1.0f / cam_.focal;
    block_ = shading_block(o);
    tiles_x_ = (width + kTile - 1) / kTile;
    tiles_y_ = (height + kTile - 1) / kTile;
    if (o.shading == Shading::Msaa) global_ = std::make_unique<ShadingCache>(0, block_);  // once per pixel and triangle
    else if (o.scope == CacheScope::Global) global_ = std::make_unique<ShadingCache>(o.cache, block_);
    else tile_caches_.resize(static_cast<std::size_t>(tiles_x_) * static_cast<std::size_t>(tiles_y_));
  }

  bool cancelled() const { return opt_.cancel && opt_.cancel->load(std::memory_order_relaxed); }

  std::optional<Image> run(const std::vector<const FragmentShader*>& shaders, std::string* error) {
    const auto start = Clock::now();
    // The sample buffers of this thread's last render, reused (first touching fresh pages costs
    // tens of milliseconds a frame on a virtual machine), and kept for the next when not huge.
    thread_local std::vector<std::uint32_t> kept_front;
    thread_local std::vector<float> kept_depth;
    front_.swap(kept_front);
    depth_.swap(kept_depth);
    struct GiveBack {
      DecoupledRenderer& r;
      ~GiveBack() {
        constexpr std::size_t kKeep = std::size_t{256} << 20;
        if (r.front_.capacity() * sizeof(std::uint32_t) <= kKeep) kept_front.swap(r.front_);
        if (r.depth_.capacity() * sizeof(float) <= kKeep) kept_depth.swap(r.depth_);
      }
    } give_back{*this};
    // Per visibility sample, a 32 x 32 tile's pixels together in Morton order (slot()).
    const std::size_t samples = static_cast<std::size_t>(tiles_x_) * static_cast<std::size_t>(tiles_y_) * kTile * kTile * static_cast<std::size_t>(spp_);
    reserve_large(front_, samples);
    front_.assign(samples, kNone);
    reserve_large(depth_, samples);
    depth_.assign(samples, std::numeric_limits<float>::infinity());
    const Exposure exposure{cam_.aperture, cam_.shutter0, cam_.shutter1, opt_.motion_angle};
    std::vector<DrawBatch> batches = draw_list(scene_, shaders, threads_, &exposure);
    long total_triangles = 0;
    for (const DrawBatch& b : batches) total_triangles += static_cast<long>(b.triangles.size());
    total_triangles_ = std::max(1L, total_triangles);
    for (DrawBatch& b : batches) {
      draw(b);
      if (cancelled()) {
        if (error) *error = "the render was cancelled";
        return std::nullopt;
      }
      triangle_base_ += static_cast<std::uint32_t>(b.triangles.size());
    }
    const auto resolve_start = Clock::now();
    Image out = resolve();
    stats_.resolve_ms = ms_since(resolve_start);
    finish_stats();
    stats_.milliseconds = ms_since(start);
    return out;
  }

 private:
  // ---- one draw ----------------------------------------------------------------------------

  void draw(const DrawBatch& b) {
    const auto raster_start = Clock::now();
    batch_ = &b;
    batch_runs_ = runs_.size();
    const std::size_t n = b.triangles.size();
    setups_.resize(n);
    refs_.resize(n);
    parallel_for(static_cast<int>((n + 255) / 256), threads_, opt_.cancel, [&](int piece) {
      for (std::size_t i = static_cast<std::size_t>(piece) * 256; i < std::min(n, static_cast<std::size_t>(piece + 1) * 256); ++i) set_up(b, i);
    });
    // Blurred triangles' bounds per stratum cell.
    const std::size_t cells = static_cast<std::size_t>(pattern_.strata()) * pattern_.strata() * pattern_.strata();
    box_of_.assign(n, kNone);
    std::size_t boxes = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (setups_[i].kind != Blur::Static && !setups_[i].bounds.empty()) {
        box_of_[i] = static_cast<std::uint32_t>(boxes);
        boxes += cells;
      }
    boxes_.resize(boxes);
    parallel_for(static_cast<int>((n + 255) / 256), threads_, opt_.cancel, [&](int piece) {
      for (std::size_t i = static_cast<std::size_t>(piece) * 256; i < std::min(n, static_cast<std::size_t>(piece + 1) * 256); ++i)
        if (box_of_[i] != kNone) strata_bounds(setups_[i], cam_, pattern_, boxes_.data() + box_of_[i]);
    });
    for (std::size_t i = 0; i < n; ++i) {
      ++stats_.triangles[static_cast<int>(setups_[i].kind)];
      if (refs_[i].view == 1) ++stats_.reference_fallbacks;
      if (refs_[i].view == 2) ++stats_.barycentric_grids;
      if (refs_[i].partial) ++stats_.partial_views;
    }
    stats_.passes = std::max(stats_.passes, b.shader->passes());
    // Sort-middle binning: the tiles of a 128 kB sample memory each triangle's blurred bounds touch.
    const int side = tile_side(spp_);
    for (std::size_t i = 0; i < n; ++i) {
      const PixelRect& r = setups_[i].bounds;
      if (r.empty()) continue;
      ++stats_.binned_triangles;
      stats_.bin_entries += static_cast<long>((r.x1 - 1) / side - r.x0 / side + 1) * ((r.y1 - 1) / side - r.y0 / side + 1);
    }
    // The traversal: each triangle's tiles in Morton order.
    units_.clear();
    std::vector<std::pair<std::uint32_t, std::uint32_t>> tiles;  // (morton, tile index)
    for (std::size_t i = 0; i < n; ++i) {
      const PixelRect& r = setups_[i].bounds;
      if (r.empty()) continue;
      tiles.clear();
      for (int ty = r.y0 / kTile; ty <= (r.y1 - 1) / kTile; ++ty)
        for (int tx = r.x0 / kTile; tx <= (r.x1 - 1) / kTile; ++tx)
          tiles.push_back({morton(static_cast<std::uint32_t>(tx), static_cast<std::uint32_t>(ty)), static_cast<std::uint32_t>(ty * tiles_x_ + tx)});
      std::sort(tiles.begin(), tiles.end());
      for (const auto& [code, t] : tiles)
        units_.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint16_t>(t % static_cast<std::uint32_t>(tiles_x_)),
                          static_cast<std::uint16_t>(t / static_cast<std::uint32_t>(tiles_x_))});
    }
    // Windows of units, pipelined: a window's units are covered on the workers; its samples are
    // depth-tested by tile and then drawn in order on this thread while a helper covers the next
    // window's units, this thread joining in once its drawing is done.
    std::vector<std::pair<std::size_t, std::size_t>> windows;
    for (std::size_t at = 0; at < units_.size();) {
      std::size_t end = at;
      long budget = 0;
      while (end < units_.size() && (end == at || budget < (1L << 20))) {
        budget += unit_area(units_[end]) * spp_;
        ++end;
      }
      windows.push_back({at, end});
      at = end;
    }
    double shade_ms = 0;
    std::vector<std::vector<Covered>>* now = &covered_;
    std::vector<std::vector<Covered>>* next = &covered_next_;
    auto cover_window = [&](std::size_t w, std::vector<std::vector<Covered>>& into, std::atomic<std::size_t>& taken) {
      const auto [at, end] = windows[w];
      for (std::size_t u = taken++; u < end - at && !cancelled(); u = taken++) cover_unit(units_[at + u], into[u]);
    };
    if (!windows.empty()) {
      if (now->size() < windows[0].second - windows[0].first) now->resize(windows[0].second - windows[0].first);
      parallel_for(static_cast<int>(windows[0].second - windows[0].first), threads_, opt_.cancel,
                   [&](int u) { cover_unit(units_[static_cast<std::size_t>(u)], (*now)[static_cast<std::size_t>(u)]); });
    }
    for (std::size_t w = 0; w < windows.size() && !cancelled(); ++w) {
      // Plain variables, not a structured binding: the lambdas below capture them (clang before
      // 16 cannot capture a binding).
      const std::size_t at = windows[w].first, end = windows[w].second;
      // The depth tests: each tile's units on one worker, in order.
      parallel_for(threads_, threads_, opt_.cancel, [&](int lane) {
        for (std::size_t u = at; u < end; ++u)
          if ((units_[u].tx + units_[u].ty) % threads_ == lane) depth_test(units_[u], (*now)[u - at]);
      });
      std::atomic<std::size_t> taken{0};
      std::thread helper;
      if (w + 1 < windows.size()) {
        if (next->size() < windows[w + 1].second - windows[w + 1].first) next->resize(windows[w + 1].second - windows[w + 1].first);
        if (threads_ > 1) helper = std::thread([&] { cover_window(w + 1, *next, taken); });
      }
      for (std::size_t u = at; u < end; ++u) draw_unit(units_[u], (*now)[u - at]);
      if (w + 1 < windows.size()) cover_window(w + 1, *next, taken);
      if (helper.joinable()) helper.join();
      std::swap(now, next);
      if (opt_.progress)
        opt_.progress->store(static_cast<int>(1000 * (static_cast<long>(triangle_base_) + static_cast<long>(units_[end - 1].triangle)) / total_triangles_));
      if (runs_.size() - shaded_ >= 65536) {
        const auto t = Clock::now();
        shade_pending();
        shade_ms += ms_since(t);
      }
    }
    const auto t = Clock::now();
    shade_pending();
    shade_ms += ms_since(t);
    stats_.shade_ms += shade_ms;
    stats_.raster_ms += ms_since(raster_start) - shade_ms;
    measure_footprints();
  }

  // The paper's blur area (LensCamera::blur_area) of this batch's runs' material points, summed;
  // points behind the eye at an end of the shutter are left out.
  void measure_footprints() {
    // In fixed pieces on the workers, summed in order: the same total on any number of threads.
    constexpr std::size_t kPiece = 1 << 16;
    const std::size_t first = batch_runs_, count = runs_.size() - first, pieces = (count + kPiece - 1) / kPiece;
    std::vector<double> sums(pieces, 0.0);
    std::vector<long> counts(pieces, 0);
    parallel_for(static_cast<int>(pieces), threads_, nullptr, [&](int piece) {
      const std::size_t a = first + static_cast<std::size_t>(piece) * kPiece, e = std::min(runs_.size(), a + kPiece);
      for (std::size_t i = a; i < e; ++i) {
        const Run& run = runs_[i];
        const TriangleSetup& s = setups_[run.triangle];
        const float b0 = 1 - run.b1 - run.b2;
        const Vec3 open = s.open[0] * b0 + s.open[1] * run.b1 + s.open[2] * run.b2;
        const Vec3 close = open + s.move[0] * b0 + s.move[1] * run.b1 + s.move[2] * run.b2;
        const double area = cam_.blur_area(open, close);
        if (!std::isfinite(area)) continue;
        sums[static_cast<std::size_t>(piece)] += area;
        ++counts[static_cast<std::size_t>(piece)];
      }
    });
    for (std::size_t p = 0; p < pieces; ++p) {
      footprint_sum_ += sums[p];
      footprints_ += counts[p];
    }
  }

  // Where pixel (x, y)'s samples are kept: by 32 x 32 tile, and in Morton order inside it, so
  // that the samples a triangle's traversal touches lie together.
  std::uint32_t slot(int x, int y) const {
    return (static_cast<std::uint32_t>(y / kTile) * static_cast<std::uint32_t>(tiles_x_) + static_cast<std::uint32_t>(x / kTile)) * kTile * kTile +
           morton(static_cast<std::uint32_t>(x % kTile), static_cast<std::uint32_t>(y % kTile));
  }

  long unit_area(const Unit& u) const {
    const PixelRect& r = setups_[u.triangle].bounds;
    const int x0 = std::max(r.x0, u.tx * kTile), x1 = std::min(r.x1, (u.tx + 1) * kTile);
    const int y0 = std::max(r.y0, u.ty * kTile), y1 = std::min(r.y1, (u.ty + 1) * kTile);
    return static_cast<long>(std::max(0, x1 - x0)) * std::max(0, y1 - y0);
  }

  void set_up(const DrawBatch& b, std::size_t i) {
    setups_[i] = setup_triangle(b.triangles[i], b.triangles_end[i], b.cull_back[i] != 0, cam_);
    ReferenceView& r = refs_[i];
    r = ReferenceView{};
    const TriangleSetup& s = setups_[i];
    const std::array<Vec3, 3> close{s.open[0] + s.move[0], s.open[1] + s.move[1], s.open[2] + s.move[2]};
    // A triangle crossing the near plane has no view of all its corners. When it does not move,
    // the lens centre's view at the opening still maps its visible part (the floor reaching
    // behind the eye): every sample the rasterizer draws lies in front of the near plane, at the
    // same place at every time, so its point projects from the lens centre whatever the lens
    // point that saw it. A moving one's point may have been behind the eye at the opening: then
    // the closing's view if that shows all of it, else the opening's for the samples whose
    // points were in front of the near plane then, and a barycentric grid for the rest.
    const bool still = s.kind == Blur::Static || s.kind == Blur::Defocused;
    if (reference_view(s.open, cam_, &r, still)) r.view = 0;
    else if (reference_view(close, cam_, &r)) r.view = 1;
    else if (reference_view(s.open, cam_, &r, true)) r.partial = true;
    else r.view = 2;
    float step = std::sqrt(std::max(1.0f / 64, opt_.rate * b.shading_rate[i]));
    if (opt_.adaptive && cam_.aperture > 0) {
      // The smallest circle of confusion over the triangle: zero if it reaches the focal plane.
      float zmin = std::numeric_limits<float>::infinity(), zmax = -zmin;
      for (int c = 0; c < 3; ++c)
        for (const Vec3& p : {s.open[static_cast<std::size_t>(c)], close[static_cast<std::size_t>(c)]}) {
          zmin = std::min(zmin, p.z);
          zmax = std::max(zmax, p.z);
        }
      const float coc = zmin <= cam_.focus && zmax >= cam_.focus ? 0.0f
                                                                  : std::min(cam_.circle_of_confusion(zmin), cam_.circle_of_confusion(zmax));
      step = std::max(step, coc / kCocPerStep);
    }
    r.step = opt_.shading == Shading::Msaa || opt_.shading == Shading::Supersample || opt_.shading == Shading::Exact ? 1.0f : step;
    if (r.view == 2 || r.partial) {
      // No view shows the whole triangle: a grid on its barycentric coordinates, as fine as its
      // largest edge on screen over the step, its edges cut at the near plane.
      float extent = 0;
      for (const auto& tri : {s.open, close}) extent = std::max(extent, screen_extent(tri, cam_));
      r.grid = std::clamp(static_cast<int>(std::ceil(extent / r.step)), 16, 4096);
    }
  }

  // Covers one unit: its samples in Morton order of 2 x 2 quads, pixels of a quad in Z order.
  void cover_unit(const Unit& u, std::vector<Covered>& out) const {
    out.clear();
    const std::uint32_t tri = u.triangle;
    const TriangleSetup& s = setups_[tri];
    const ReferenceView& ref = refs_[tri];
    const PixelRect& r = s.bounds;
    const int x0 = std::max(r.x0, u.tx * kTile), x1 = std::min(r.x1, (u.tx + 1) * kTile);
    const int y0 = std::max(r.y0, u.ty * kTile), y1 = std::min(r.y1, (u.ty + 1) * kTile);
    if (x0 >= x1 || y0 >= y1) return;
    // A blurred triangle's strata cells that may see some pixel of this unit (their bounds meet it).
    const PixelRect* boxes = box_of_[tri] == kNone ? nullptr : boxes_.data() + box_of_[tri];
    std::uint8_t live[256];
    int n_live = 0;
    // With at most 64 samples (and cells): per column and row of the unit, the cells whose
    // bounds hold it, so that a pixel's cells are one AND.
    const bool by_words = spp_ <= 64;
    std::uint64_t column_cells[kTile] = {}, row_cells[kTile] = {};
    if (boxes) {
      for (int cell = 0; cell < pattern_.cells(); ++cell) {
        const PixelRect& b = boxes[cell];
        if (!(b.x0 < x1 && b.x1 > x0 && b.y0 < y1 && b.y1 > y0)) continue;
        live[n_live++] = static_cast<std::uint8_t>(cell);
        if (!by_words) continue;
        for (int x = std::max(b.x0, x0); x < std::min(b.x1, x1); ++x) column_cells[x - u.tx * kTile] |= std::uint64_t{1} << cell;
        for (int y = std::max(b.y0, y0); y < std::min(b.y1, y1); ++y) row_cells[y - u.ty * kTile] |= std::uint64_t{1} << cell;
      }
      if (n_live == 0) return;
    }
    thread_local std::vector<Hit> hits;  // a pixel's covered samples (kept: Hit's constructor zeroes)
    thread_local std::vector<std::uint8_t> ks;
    hits.resize(static_cast<std::size_t>(spp_));
    ks.resize(static_cast<std::size_t>(spp_));
    std::uint32_t quads[256];
    int count = 0;
    for (int qy = (y0 - u.ty * kTile) / 2; qy <= (y1 - 1 - u.ty * kTile) / 2; ++qy)
      for (int qx = (x0 - u.tx * kTile) / 2; qx <= (x1 - 1 - u.tx * kTile) / 2; ++qx)
        quads[count++] = morton(static_cast<std::uint32_t>(qx), static_cast<std::uint32_t>(qy));
    std::sort(quads, quads + count);
    for (int q = 0; q < count; ++q) {
      // Decode the quad's position from its Morton code.
      std::uint32_t qx = 0, qy = 0;
      for (int bit = 0; bit < 8; ++bit) {
        qx |= ((quads[q] >> (2 * bit)) & 1u) << bit;
        qy |= ((quads[q] >> (2 * bit + 1)) & 1u) << bit;
      }
      for (int p = 0; p < 4; ++p) {
        const int x = u.tx * kTile + static_cast<int>(qx) * 2 + (p & 1), y = u.ty * kTile + static_cast<int>(qy) * 2 + (p >> 1);
        if (x < x0 || x >= x1 || y < y0 || y >= y1) continue;
        const std::uint32_t first = slot(x, y) * static_cast<std::uint32_t>(spp_);
        // Only the samples of cells that can see the triangle from this pixel are tested.
        std::uint64_t only[4] = {0, 0, 0, 0};
        int candidates = spp_;
        if (boxes && by_words) {
          const std::uint64_t seen = column_cells[x - u.tx * kTile] & row_cells[y - u.ty * kTile];
          if (!seen) continue;
          const std::uint64_t* samples = pattern_.cell_samples(x, y);
          for (std::uint64_t bits = seen; bits; bits &= bits - 1) only[0] |= samples[__builtin_ctzll(bits)];
          candidates = std::popcount(only[0]);
        } else if (boxes) {
          candidates = 0;
          const std::uint16_t* start = pattern_.cell_start(x, y);
          const std::uint8_t* by_cell = pattern_.by_cell(x, y);
          for (int l = 0; l < n_live; ++l) {
            const int cell = live[l];
            const PixelRect& b = boxes[cell];
            if (x < b.x0 || x >= b.x1 || y < b.y0 || y >= b.y1) continue;
            for (int i = start[cell]; i < start[cell + 1]; ++i) only[by_cell[i] >> 6] |= std::uint64_t{1} << (by_cell[i] & 63);
            candidates += start[cell + 1] - start[cell];
          }
          if (candidates == 0) continue;
        }
        const int count = cover_pixel(s, cam_, pattern_, x, y, hits.data(), ks.data(), candidates < spp_ ? only : nullptr);
        for (int i = 0; i < count; ++i) {
          const Hit& hit = hits[i];
          Covered c{first + ks[i], hit.z, hit.b1, hit.b2, 0, 0, static_cast<std::uint16_t>(x), static_cast<std::uint16_t>(y)};
          if (ref.view < 2) {
            const float b0 = 1 - hit.b1 - hit.b2;
            const auto& m = ref.m;
            const float w = m[6] * b0 + m[7] * hit.b1 + m[8] * hit.b2;
            if (!ref.partial || w >= cam_.near) {
              c.sx = (m[0] * b0 + m[1] * hit.b1 + m[2] * hit.b2) / w;
              c.sy = (m[3] * b0 + m[4] * hit.b1 + m[5] * hit.b2) / w;
            } else {  // behind the eye when the shutter opened: no place on that view's screen
              c.sx = c.sy = std::numeric_limits<float>::quiet_NaN();
            }
          }
          grid_cell(ref, c);
          out.push_back(c);
        }
      }
    }
  }

  // Whether a covered sample is shaded on its triangle's barycentric grid (no view maps its point).
  static bool on_grid(const ReferenceView& ref, const Covered& c) { return ref.view == 2 || (ref.partial && std::isnan(c.sx)); }

  // A covered sample's shading grid cell, worked out here, on the workers, for the ordered stage.
  void grid_cell(const ReferenceView& ref, Covered& c) const {
    if (opt_.shading == Shading::Msaa) {
      c.ix = c.x;
      c.iy = c.y;
    } else if (on_grid(ref, c)) {
      c.ix = static_cast<std::int32_t>(std::floor(c.b1 * static_cast<float>(ref.grid)));
      c.iy = static_cast<std::int32_t>(std::floor(c.b2 * static_cast<float>(ref.grid)));
    } else {
      c.ix = static_cast<std::int32_t>(std::floor(c.sx / ref.step));
      c.iy = static_cast<std::int32_t>(std::floor(c.sy / ref.step));
    }
  }

  ShadingCache& cache_for(std::uint32_t pixel_x, std::uint32_t pixel_y) {
    if (global_) return *global_;
    auto& c = tile_caches_[(pixel_y / kTile) * static_cast<std::uint32_t>(tiles_x_) + pixel_x / kTile];
    if (!c) c = std::make_unique<ShadingCache>(opt_.cache, block_);
    return *c;
  }

  // A lookup, with repeated lookups of the most recently used key answered without the table
  // (they change nothing in an LRU cache, and count as the hits they are).
  ShadingCache::Result lookup(ShadingCache& cache, const ShadingKey& key, std::uint32_t value_if_missed) {
    if (&cache == last_cache_ && key == last_key_) {
      ++repeat_hits_;
      return {true, last_value_};
    }
    const ShadingCache::Result r = cache.lookup(key, value_if_missed);
    last_cache_ = &cache;
    last_key_ = key;
    last_value_ = r.value;
    return r;
  }

  // Whether the points grid cell (kx, ky) (or the quad of cells) shades lie in front of the near
  // plane in the triangle's view (a partial view's may not).
  bool centres_in_front(const ReferenceView& ref, std::int32_t kx, std::int32_t ky) const {
    for (int m = 0; m < block_; ++m) {
      const std::int32_t ix = block_ == 4 ? kx * 2 + (m & 1) : kx, iy = block_ == 4 ? ky * 2 + (m >> 1) : ky;
      float b1 = 0, b2 = 0;
      barycentrics_at(ref, cam_, (static_cast<float>(ix) + 0.5f) * ref.step, (static_cast<float>(iy) + 0.5f) * ref.step, false, &b1, &b2);
      if (!(ref.m[6] * (1 - b1 - b2) + ref.m[7] * b1 + ref.m[8] * b2 >= cam_.near)) return false;
    }
    return true;
  }

  // New runs for grid cell (ix, iy) of a triangle's reference view, or the quad holding it.
  std::uint32_t add_grid_runs(std::uint32_t tri, const ReferenceView& ref, std::int32_t kx, std::int32_t ky, bool snap) {
    const std::uint32_t first = static_cast<std::uint32_t>(runs_.size());
    for (int m = 0; m < block_; ++m) {
      const std::int32_t ix = block_ == 4 ? kx * 2 + (m & 1) : kx, iy = block_ == 4 ? ky * 2 + (m >> 1) : ky;
      Run run;
      run.triangle = tri;
      run.step = ref.step;
      run.gx = (static_cast<float>(ix) + 0.5f) * ref.step;
      run.gy = (static_cast<float>(iy) + 0.5f) * ref.step;
      barycentrics_at(ref, cam_, run.gx, run.gy, snap, &run.b1, &run.b2);
      runs_.push_back(run);
    }
    return first;
  }
  std::uint32_t add_barycentric_runs(std::uint32_t tri, const ReferenceView& ref, std::int32_t kx, std::int32_t ky) {
    const std::uint32_t first = static_cast<std::uint32_t>(runs_.size());
    for (int m = 0; m < block_; ++m) {
      const std::int32_t i = block_ == 4 ? kx * 2 + (m & 1) : kx, j = block_ == 4 ? ky * 2 + (m >> 1) : ky;
      Run run;
      run.triangle = tri;
      run.step = 0;
      run.gx = run.gy = std::numeric_limits<float>::quiet_NaN();
      run.b1 = std::clamp((static_cast<float>(i) + 0.5f) / static_cast<float>(ref.grid), 0.0f, 1.0f);
      run.b2 = std::clamp((static_cast<float>(j) + 0.5f) / static_cast<float>(ref.grid), 0.0f, 1.0f);
      if (run.b1 + run.b2 > 1) {
        const float total = run.b1 + run.b2;
        run.b1 /= total;
        run.b2 /= total;
      }
      runs_.push_back(run);
    }
    return first;
  }

  // The run (or bilinear tap set) a covered, visible sample shows.
  std::uint32_t shade_sample(std::uint32_t tri, const Covered& c, std::uint32_t px, std::uint32_t py, bool* hit) {
    const ReferenceView& ref = refs_[tri];
    const std::uint32_t id = triangle_base_ + tri;
    auto own_run = [&] {
      Run run{tri, c.b1, c.b2, c.sx, c.sy, 1};
      if (on_grid(ref, c)) run.gx = run.gy = std::numeric_limits<float>::quiet_NaN();
      runs_.push_back(run);
      return static_cast<std::uint32_t>(runs_.size() - 1);
    };
    switch (opt_.shading) {
      case Shading::Supersample:
        *hit = false;
        return own_run();
      case Shading::Exact: {
        *hit = false;
        const int k = static_cast<int>(c.sample % static_cast<std::uint32_t>(spp_));
        run_uvt_.push_back(pattern_.uvt(c.x, c.y, k));  // (every run of this mode is made here: indices agree)
        return own_run();
      }
      case Shading::Msaa: {
        // The sample's own pixel: its centre as seen from the reference view.
        const std::int32_t ix = c.ix, iy = c.iy;
        const ShadingKey key{id, 0, block_ == 4 ? ix >> 1 : ix, block_ == 4 ? iy >> 1 : iy};
        const auto r = lookup(*global_, key, static_cast<std::uint32_t>(runs_.size()));
        if (!r.hit) {
          // No view maps the pixel's centre onto the triangle: the pixel's first sample's own
          // point stands for it (key.x, key.y are pixels, not cells of the barycentric grid).
          if (on_grid(ref, c) || (ref.partial && !centres_in_front(ref, key.x, key.y)))
            for (int m = 0; m < block_; ++m) own_run();
          else add_grid_runs(tri, ref, key.x, key.y, false);
        }
        *hit = r.hit;
        return r.value + (block_ == 4 ? static_cast<std::uint32_t>((ix & 1) + 2 * (iy & 1)) : 0u);
      }
      case Shading::Decoupled:
      case Shading::Opportunistic: break;
    }
    ShadingCache& cache = cache_for(px, py);
    if (on_grid(ref, c)) {
      const std::int32_t i = c.ix, j = c.iy;
      const ShadingKey key{id, 1, block_ == 4 ? i >> 1 : i, block_ == 4 ? j >> 1 : j};
      const auto r = lookup(cache, key, static_cast<std::uint32_t>(runs_.size()));
      if (!r.hit) {
        if (opt_.shading == Shading::Opportunistic) own_run();
        else add_barycentric_runs(tri, ref, key.x, key.y);
      }
      *hit = r.hit;
      const std::uint32_t run = r.value + (block_ == 4 ? static_cast<std::uint32_t>((i & 1) + 2 * (j & 1)) : 0u);
      if (!bilinear()) return run;
      // Bilinear reconstruction reads taps: the grid's run alone, in all four.
      Tap tap;
      tap.run = {run, run, run, run};
      tap.fx = tap.fy = 0;
      taps_.push_back(tap);
      return static_cast<std::uint32_t>(taps_.size() - 1);
    }
    auto cell_run = [&](std::int32_t ix, std::int32_t iy, bool snap, bool* was_hit) {
      const ShadingKey key{id, 0, block_ == 4 ? ix >> 1 : ix, block_ == 4 ? iy >> 1 : iy};
      const auto r = lookup(cache, key, static_cast<std::uint32_t>(runs_.size()));
      if (!r.hit) {
        if (opt_.shading == Shading::Opportunistic) own_run();
        else add_grid_runs(tri, ref, key.x, key.y, snap);
      }
      *was_hit = r.hit;
      return r.value + (block_ == 4 ? static_cast<std::uint32_t>((ix & 1) + 2 * (iy & 1)) : 0u);
    };
    if (opt_.reconstruct == Reconstruct::Nearest || opt_.shading == Shading::Opportunistic) return cell_run(c.ix, c.iy, false, hit);
    const float gx = c.sx / ref.step, gy = c.sy / ref.step;
    // Bilinear: the four shading points around the sample, snapped onto the triangle.
    const float fx = gx - 0.5f, fy = gy - 0.5f;
    const std::int32_t ix = static_cast<std::int32_t>(std::floor(fx)), iy = static_cast<std::int32_t>(std::floor(fy));
    Tap tap;
    tap.fx = fx - static_cast<float>(ix);
    tap.fy = fy - static_cast<float>(iy);
    bool any_miss = false;
    for (int m = 0; m < 4; ++m) {
      bool h = false;
      tap.run[static_cast<std::size_t>(m)] = cell_run(ix + (m & 1), iy + (m >> 1), true, &h);
      any_miss = any_miss || !h;
    }
    *hit = !any_miss;
    taps_.push_back(tap);
    return static_cast<std::uint32_t>(taps_.size() - 1);
  }

  // Covers a unit and depth-tests its samples in their order (shuffled when asked), keeping those
  // that pass. Safe beside other tiles' units: a tile's samples are its own (slot()).
  void depth_test(const Unit& u, std::vector<Covered>& covered) {
    const std::uint32_t tri = u.triangle;
    if (opt_.shuffle && covered.size() > 1) {
      std::uint64_t state = (static_cast<std::uint64_t>(opt_.shuffle) << 32) ^ (triangle_base_ + tri) ^ (static_cast<std::uint64_t>(u.tx) << 48) ^ (static_cast<std::uint64_t>(u.ty) << 40);
      for (std::size_t i = covered.size() - 1; i > 0; --i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        std::swap(covered[i], covered[static_cast<std::size_t>((state >> 33) % (i + 1))]);
      }
    }
    const bool opaque = batch_->opaque[tri] != 0;
    depth_tests_.fetch_add(static_cast<long>(covered.size()), std::memory_order_relaxed);
    std::size_t kept = 0;
    for (const Covered& c : covered) {
      if (!(c.z < depth_[c.sample])) continue;
      if (opaque) depth_[c.sample] = c.z;
      covered[kept++] = c;
    }
    covered.resize(kept);
  }

  // Draws a unit's samples that passed the depth test, in order: the shading lookups.
  void draw_unit(const Unit& u, const std::vector<Covered>& covered) {
    const std::uint32_t tri = u.triangle;
    const bool opaque = batch_->opaque[tri] != 0;
    stats_.samples_tested += static_cast<long>(covered.size());
    for (const Covered& c : covered) {
      const std::uint32_t px = c.x, py = c.y, pixel = py * static_cast<std::uint32_t>(width_) + px;
      bool hit = false;
      const std::uint32_t ref = shade_sample(tri, c, px, py, &hit);
      if (opaque) front_[c.sample] = ref;
      else clear_writes_.push_back({c.sample, ref});
      // Blur area: the pixels each run is seen in (a triangle visits each pixel once).
      count_pixel(ref, pixel);
      if (opt_.capture && static_cast<int>(px) == opt_.capture->probe_x && static_cast<int>(py) == opt_.capture->probe_y) trace(tri, c, ref, hit);
    }
  }

  void count_pixel(std::uint32_t ref, std::uint32_t pixel) {
    auto one = [&](std::uint32_t run) {
      if (run_pixel_.size() <= run) run_pixel_.resize(runs_.size(), kNone);
      if (run_pixel_[run] != pixel) {
        run_pixel_[run] = pixel;
        ++run_pixels_;
      }
    };
    if (bilinear()) {
      for (std::uint32_t run : taps_[ref].run) one(run);
    } else {
      one(ref);
    }
  }
  bool bilinear() const { return opt_.reconstruct == Reconstruct::Bilinear && opt_.shading == Shading::Decoupled; }

  void trace(std::uint32_t tri, const Covered& c, std::uint32_t ref, bool hit) {
    SampleTrace s;
    s.k = static_cast<int>(c.sample % static_cast<std::uint32_t>(spp_));
    s.sx = static_cast<float>(c.x) + pattern_.xy(s.k)[0];
    s.sy = static_cast<float>(c.y) + pattern_.xy(s.k)[1];
    const auto& uvt = pattern_.uvt(c.x, c.y, s.k);
    s.u = uvt[0];
    s.v = uvt[1];
    s.t = uvt[2];
    s.object = batch_->object[tri];
    s.triangle = triangle_base_ + tri;
    s.z = c.z;
    s.hit = hit;
    if (bilinear()) {
      const Tap& tap = taps_[ref];
      s.taps = 4;
      s.runs = tap.run;
      s.weights = {(1 - tap.fx) * (1 - tap.fy), tap.fx * (1 - tap.fy), (1 - tap.fx) * tap.fy, tap.fx * tap.fy};
    } else {
      s.runs[0] = ref;
    }
    trace_refs_.push_back({c.sample, ref, batch_->opaque[tri] != 0});
    opt_.capture->samples.push_back(s);
  }

  // ---- shading -----------------------------------------------------------------------------

  // Shades the runs made since the last call, in chunks on the threads, each chunk through every
  // pass with its values kept per run.
  void shade_pending() {
    const std::size_t from = shaded_, to = runs_.size();
    if (from == to) return;
    values_.resize(to * 4);
    const FragmentShader& sh = *batch_->shader;
    const int chunks = static_cast<int>((to - from + kShadeChunk - 1) / kShadeChunk);
    parallel_for(chunks, threads_, nullptr, [&](int c) {
      const std::size_t a = from + static_cast<std::size_t>(c) * kShadeChunk, e = std::min(to, a + kShadeChunk);
      shade_chunk(sh, a, e);
    });
    stats_.slot_passes += static_cast<long>(to - from) * sh.passes();
    if (sh.operations() > 0) {
      operations_ += static_cast<double>(to - from) * static_cast<double>(sh.operations());
      known_runs_ += static_cast<long>(to - from);
    }
    shaded_ = to;
  }

  void shade_chunk(const FragmentShader& sh, std::size_t from, std::size_t to) {
    const DrawBatch& b = *batch_;
    const int k = sh.interpolants(), passes = sh.passes();
    const std::size_t n_runs = to - from;
    thread_local std::vector<std::vector<float>> buffers;  // the chunk's F-buffer: a slot per run
    buffers.resize(static_cast<std::size_t>(sh.buffers()));
    for (auto& buf : buffers) buf.resize(n_runs * 4);
    thread_local std::vector<float> in, rest, out, scratch, own;
    thread_local std::vector<const float*> in_ptr, rest_ptr;
    in.resize(static_cast<std::size_t>(k) * 4 * kBatch);
    // The ground truth sets each run's corners up at its own time and lens point, once for
    // every pass (a still triangle under a pinhole and an instant's shutter has the batch's; with
    // the shutter open its shader may read `time`, as a moving light's does).
    const std::size_t per_run = 3 * static_cast<std::size_t>(k) * 4;
    const bool exact = opt_.shading == Shading::Exact;
    if (exact) {
      own.resize(n_runs * per_run);
      const bool changes = cam_.aperture > 0 || cam_.shutter1 > cam_.shutter0;
      for (std::size_t r = 0; r < n_runs; ++r) {
        const Run& run = runs_[from + r];
        float* slot = own.data() + r * per_run;
        if (changes) exact_corners(run, run_uvt_[from + r], slot);
        else std::copy_n(b.corners.data() + static_cast<std::size_t>(run.triangle) * per_run, per_run, slot);
      }
    }
    int most = 1;
    for (int p = 0; p < passes; ++p) most = std::max(most, sh.outputs(p));
    out.resize(static_cast<std::size_t>(most) * 4 * kBatch);
    in_ptr.resize(static_cast<std::size_t>(k));
    for (int i = 0; i < k; ++i) in_ptr[static_cast<std::size_t>(i)] = in.data() + static_cast<std::size_t>(i) * 4 * kBatch;
    for (int p = 0; p < passes; ++p) {
      const std::vector<int>& restores = sh.restores(p);
      rest.resize(std::max<std::size_t>(1, restores.size()) * 4 * kBatch);
      rest_ptr.resize(restores.size());
      for (std::size_t r = 0; r < restores.size(); ++r) rest_ptr[r] = rest.data() + r * 4 * kBatch;
      std::vector<int> components, derivatives;
      for (int i = 0; i < k; ++i) {
        const unsigned mask = sh.interpolant_mask(p, i);
        if (!mask) continue;
        if (sh.screen_derivatives(i) || sh.screen_difference(i)) derivatives.push_back(i);
        else
          for (int comp = 0; comp < 4; ++comp)
            if (mask & (1u << comp)) components.push_back(i * 4 + comp);
      }
      const int outputs = sh.outputs(p);
      for (std::size_t at = 0; at < n_runs; at += kBatch) {
        const int n = static_cast<int>(std::min<std::size_t>(kBatch, n_runs - at));
        for (int j = 0; j < n; ++j) {
          const Run& run = runs_[from + at + static_cast<std::size_t>(j)];
          const float b0 = 1 - run.b1 - run.b2;
          const float* c = b.corners.data() + static_cast<std::size_t>(run.triangle) * 3 * static_cast<std::size_t>(k) * 4;
          if (exact) c = own.data() + (at + static_cast<std::size_t>(j)) * per_run;
          for (int comp : components)
            in[static_cast<std::size_t>(comp) * kBatch + static_cast<std::size_t>(j)] =
                c[comp] * b0 + c[k * 4 + comp] * run.b1 + c[2 * k * 4 + comp] * run.b2;
          if (!derivatives.empty()) {
            const ReferenceView& ref = refs_[run.triangle];
            const float w[3] = {b0, run.b1, run.b2};
            float q[3] = {b0, run.b1, run.b2}, qx[3] = {b0, run.b1, run.b2}, qy[3] = {b0, run.b1, run.b2};
            if (ref.view < 2 && std::isfinite(run.gx)) {
              auto ray = [&](float x, float y) { return Vec3{(x - cam_.cx()) * inv_focal_, (cam_.cy() - y) * inv_focal_, 1.0f}; };
              plane_weights(ref.planes, ray(run.gx, run.gy), q);
              // On a quad target, the neighbours are the shading grid's quad partners (grid point
              // i is at (i + 0.5) step).
              const bool quad = sh.quad_differences();
              const bool odd_x = quad && (static_cast<long>(std::floor(run.gx / run.step)) & 1);
              const bool odd_y = quad && (static_cast<long>(std::floor(run.gy / run.step)) & 1);
              plane_weights(ref.planes, ray(odd_x ? run.gx - run.step : run.gx + run.step, run.gy), qx);
              plane_weights(ref.planes, ray(run.gx, odd_y ? run.gy - run.step : run.gy + run.step), qy);
            }
            for (int i : derivatives) {
              float* out = in.data() + static_cast<std::size_t>(i) * 4 * kBatch + static_cast<std::size_t>(j);
              if (const int d = sh.screen_difference(i)) difference_values(d, w, q, qx, qy, c + i * 4, c + (k + i) * 4, c + (2 * k + i) * 4, out, kBatch);
              else derivative_values(q, qx, qy, c + i * 4, c + (k + i) * 4, c + (2 * k + i) * 4, out, kBatch);
            }
          }
          for (std::size_t r = 0; r < restores.size(); ++r) {
            const float* src = buffers[static_cast<std::size_t>(restores[r])].data() + (at + static_cast<std::size_t>(j)) * 4;
            for (int comp = 0; comp < 4; ++comp) rest[r * 4 * kBatch + static_cast<std::size_t>(comp) * kBatch + static_cast<std::size_t>(j)] = src[comp];
          }
        }
        sh.run(p, n, in_ptr.data(), rest_ptr.data(), out.data(), scratch);
        for (int k = 0; k < outputs; ++k) {  // each value to its own buffer (multiple render targets)
          const int saves = sh.saves(p, k);
          const float* value = out.data() + static_cast<std::size_t>(k) * 4 * kBatch;
          for (int j = 0; j < n; ++j) {
            float* dst = saves >= 0 ? buffers[static_cast<std::size_t>(saves)].data() + (at + static_cast<std::size_t>(j)) * 4
                                    : values_.data() + (from + at + static_cast<std::size_t>(j)) * 4;
            for (int comp = 0; comp < 4; ++comp) dst[comp] = value[static_cast<std::size_t>(comp) * kBatch + static_cast<std::size_t>(j)];
          }
        }
      }
    }
  }

  // The ground truth's corners for one run: its triangle where it stands at the sample's time,
  // seen from the sample's lens point, into `out`.
  void exact_corners(const Run& run, const std::array<float, 3>& uvt, float* out) const {
    const Vec3 eye = cam_.aperture > 0 ? Vec3{cam_.aperture * uvt[0], cam_.aperture * uvt[1], 0} : Vec3{0, 0, 0};
    corners_at(*batch_, scene_, run.triangle, cam_.shutter0 + uvt[2] * (cam_.shutter1 - cam_.shutter0), eye, out);
  }

  // ---- resolve -----------------------------------------------------------------------------

  void value_of(std::uint32_t ref, float v[4]) const {
    if (bilinear()) {
      const Tap& tap = taps_[ref];
      const float w[4] = {(1 - tap.fx) * (1 - tap.fy), tap.fx * (1 - tap.fy), (1 - tap.fx) * tap.fy, tap.fx * tap.fy};
      for (int c = 0; c < 4; ++c) v[c] = 0;
      for (int m = 0; m < 4; ++m)
        for (int c = 0; c < 4; ++c) v[c] += w[m] * values_[static_cast<std::size_t>(tap.run[static_cast<std::size_t>(m)]) * 4 + static_cast<std::size_t>(c)];
      return;
    }
    for (int c = 0; c < 4; ++c) v[c] = values_[static_cast<std::size_t>(ref) * 4 + static_cast<std::size_t>(c)];
  }

  Image resolve() {
    // The transparent writes by pixel, in drawing order.
    const std::size_t pixels = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_);
    const std::size_t slots = static_cast<std::size_t>(tiles_x_) * static_cast<std::size_t>(tiles_y_) * kTile * kTile;
    std::vector<std::uint32_t> start(slots + 1, 0), order(clear_writes_.size());
    for (const auto& w : clear_writes_) ++start[w.first / static_cast<std::uint32_t>(spp_) + 1];
    for (std::size_t i = 0; i < slots; ++i) start[i + 1] += start[i];
    {
      std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
      for (std::uint32_t i = 0; i < clear_writes_.size(); ++i) order[next[clear_writes_[i].first / static_cast<std::uint32_t>(spp_)]++] = i;
    }
    Image out(width_, height_);
    std::vector<char> covered(pixels, 0);
    std::vector<std::uint32_t> drawn(pixels, 0);
    const float norm = 1.0f / static_cast<float>(spp_);
    const auto& bg = scene_.background;
    parallel_for((height_ + 15) / 16, threads_, nullptr, [&](int block) {
      std::vector<float> colour(static_cast<std::size_t>(spp_) * 4);
      std::vector<char> hit(static_cast<std::size_t>(spp_));
      for (int y = block * 16; y < std::min(height_, block * 16 + 16); ++y)
        for (int x = 0; x < width_; ++x) {
          const std::size_t pixel = static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x);
          const std::size_t at = slot(x, y);
          for (int k = 0; k < spp_; ++k) {
            float* c = colour.data() + static_cast<std::size_t>(k) * 4;
            std::copy(bg.begin(), bg.end(), c);
            const std::uint32_t ref = front_[at * static_cast<std::size_t>(spp_) + static_cast<std::size_t>(k)];
            hit[static_cast<std::size_t>(k)] = ref != kNone;
            if (ref != kNone) {
              float v[4];
              value_of(ref, v);
              for (int comp = 0; comp < 4; ++comp) c[comp] = v[comp] + (1 - v[3]) * c[comp];
            }
          }
          for (std::uint32_t i = start[at]; i < start[at + 1]; ++i) {
            const auto& w = clear_writes_[order[i]];
            float v[4];
            value_of(w.second, v);
            const std::size_t k = w.first % static_cast<std::uint32_t>(spp_);
            float* c = colour.data() + k * 4;
            for (int comp = 0; comp < 4; ++comp) c[comp] = v[comp] + (1 - v[3]) * c[comp];
            hit[k] = 1;
          }
          std::uint32_t count = 0;
          for (char h : hit) count += h ? 1u : 0u;
          float* o = out.at(x, y);
          for (int comp = 0; comp < 4; ++comp) {
            float sum = 0;
            for (int k = 0; k < spp_; ++k) sum += colour[static_cast<std::size_t>(k) * 4 + static_cast<std::size_t>(comp)];
            o[comp] = sum * norm;
          }
          covered[pixel] = count > 0;
          drawn[pixel] = count;
        }
    });
    for (std::size_t i = 0; i < pixels; ++i) {
      stats_.covered_pixels += covered[i];
      stats_.covered_samples += drawn[i];
    }
    if (DecoupledCapture* cap = opt_.capture) {
      // The traced samples' colours, and whether each is what the image shows.
      for (std::size_t i = 0; i < cap->samples.size(); ++i) {
        SampleTrace& s = cap->samples[i];
        const TracedRef& t = trace_refs_[i];
        float v[4];
        value_of(t.ref, v);
        for (int comp = 0; comp < 4; ++comp) s.colour[static_cast<std::size_t>(comp)] = v[comp];
        s.visible = t.opaque ? front_[t.sample] == t.ref : true;
        for (int m = 0; m < s.taps; ++m) {
          const Run& run = runs_[s.runs[static_cast<std::size_t>(m)]];
          s.shading_points[static_cast<std::size_t>(m)] = {run.gx, run.gy};
        }
      }
      if (cap->heat) {
        cap->width = width_;
        cap->height = height_;
        cap->shading_heat.assign(pixels, 0.0f);
        for (const Run& run : runs_)
          if (std::isfinite(run.gx) && run.gx >= 0 && run.gy >= 0 && run.gx < static_cast<float>(width_) && run.gy < static_cast<float>(height_))
            cap->shading_heat[static_cast<std::size_t>(run.gy) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(run.gx)] += 1;
      }
    }
    return out;
  }

  void finish_stats() {
    stats_.width = width_;
    stats_.height = height_;
    stats_.spp = spp_;
    stats_.visibility_samples = static_cast<long>(width_) * height_ * spp_;
    stats_.shader_runs = static_cast<long>(runs_.size());
    if (global_) stats_.cache += global_->stats();
    for (const auto& c : tile_caches_)
      if (c) stats_.cache += c->stats();
    stats_.cache.lookups += repeat_hits_;
    stats_.cache.hits += repeat_hits_;
    stats_.bin_tile = tile_side(spp_);  // (also with nothing drawn)
    stats_.depth_tests = depth_tests_.load();
    stats_.run_operations = known_runs_ ? operations_ / static_cast<double>(known_runs_) : 0.0;
    stats_.seen_pixels = runs_.empty() ? 0.0 : static_cast<double>(run_pixels_) / static_cast<double>(runs_.size());
    stats_.blur_area = footprints_ ? footprint_sum_ / static_cast<double>(footprints_) : 0.0;
  }

  struct TracedRef {
    std::uint32_t sample, ref;
    bool opaque;
  };

  const Scene& scene_;
  const DecoupledOptions& opt_;
  DecoupledStats& stats_;
  int width_, height_, spp_, threads_;
  SamplePattern pattern_;
  LensCamera cam_;
  float inv_focal_ = 1;
  int block_ = 1;
  int tiles_x_ = 1, tiles_y_ = 1;
  std::unique_ptr<ShadingCache> global_;
  std::vector<std::unique_ptr<ShadingCache>> tile_caches_;
  const ShadingCache* last_cache_ = nullptr;
  ShadingKey last_key_{kNone, kNone, 0, 0};
  std::uint32_t last_value_ = 0;
  long repeat_hits_ = 0;

  const DrawBatch* batch_ = nullptr;
  std::size_t batch_runs_ = 0;
  std::uint32_t triangle_base_ = 0;
  long total_triangles_ = 1;
  std::vector<TriangleSetup> setups_;
  std::vector<ReferenceView> refs_;
  std::vector<std::uint32_t> box_of_;  // per triangle: its first stratum box, or kNone (static: its bounds suffice)
  std::vector<PixelRect> boxes_;
  std::vector<Unit> units_;
  std::vector<std::vector<Covered>> covered_, covered_next_;  // a window's covered samples per unit, and the next's

  std::vector<std::uint32_t> front_;  // per sample: the run (or tap set) of the nearest opaque surface
  std::vector<float> depth_;          // per sample: its camera z
  std::vector<std::pair<std::uint32_t, std::uint32_t>> clear_writes_;  // transparent (sample, run or tap set), in order
  std::vector<Run> runs_;
  std::vector<Tap> taps_;
  std::vector<float> values_;         // per run: its colour (premultiplied RGBA)
  std::size_t shaded_ = 0;
  std::vector<std::uint32_t> run_pixel_;
  std::vector<std::array<float, 3>> run_uvt_;  // exact shading: each run's lens point and time
  long run_pixels_ = 0;
  std::atomic<long> depth_tests_{0};
  double operations_ = 0;  // shader instructions of the runs whose shaders say (known_runs_)
  long known_runs_ = 0;
  double footprint_sum_ = 0;  // blur areas of the runs measured (measure_footprints)
  long footprints_ = 0;
  std::vector<TracedRef> trace_refs_;
};

}  // namespace

std::optional<Image> render_decoupled(const Scene& scene, const std::vector<const FragmentShader*>& shaders,
                                      const DecoupledOptions& options, DecoupledStats* stats_out, std::string* error) {
  auto fail = [&](std::string message) -> std::optional<Image> {
    if (error) *error = std::move(message);
    return std::nullopt;
  };
  const int width = options.width > 0 ? options.width : scene.width, height = options.height > 0 ? options.height : scene.height;
  if (options.spp < 1 || options.spp > 256) return fail(fmt::format("{} samples per pixel: decoupled sampling takes 1 to 256", options.spp));
  if (width < 1 || height < 1 || width > 65535 || height > 65535) return fail(fmt::format("a {}x{} image is out of range", width, height));
  if (static_cast<long>(width) * height * options.spp > kMaxSamples)
    return fail(fmt::format("{}x{} pixels at {} samples each is {} visibility samples, more than the {} a frame may have", width, height,
                            options.spp, static_cast<long>(width) * height * options.spp, kMaxSamples));
  if (options.cache < 0) return fail("the shading cache size must be 0 (unlimited) or more");
  if (!(options.rate >= 1.0f / 64 && options.rate <= 256)) return fail(fmt::format("shading rate {}: it must be from 1/64 to 256 pixels per shading sample", options.rate));
  if (!(options.blur >= 0 && options.blur <= 64)) return fail(fmt::format("blur scale {}: it must be from 0 to 64", options.blur));
  if (!std::isfinite(options.motion_angle)) return fail("the motion's turn must be a number of degrees");
  if (options.capture) {
    options.capture->samples.clear();
    options.capture->shading_heat.clear();
  }
  DecoupledStats stats;
  const int threads = options.threads > 0 ? options.threads : hardware_threads();
  DecoupledRenderer r(scene, options, stats, width, height, threads);
  auto image = r.run(shaders, error);
  if (image && stats_out) *stats_out = stats;
  return image;
}

}  // namespace passlab::sim
