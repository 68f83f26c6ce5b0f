// SPDX-License-Identifier: GPL-3.0-or-later
// PNG files: exact 8-bit round trips, deterministic bytes, clamping, every kind of PNG the reader
// must accept (made here with libpng's own calls), and bad files reported as problems.
#include <png.h>
#include <unistd.h>

#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>

#include <gtest/gtest.h>

#include "core/sim/image.h"
#include "tests/support/diagnostics.h"

namespace passlab::sim {
namespace {

using Problem = test::Located;
using Problems = std::vector<test::Located>;

namespace fs = std::filesystem;

// A PNG described sample by sample, for the kinds of file write_png never makes. Each row holds
// the packed samples as PNG stores them (several per byte below 8 bits, big-endian at 16).
struct RawPng {
  int width = 1, height = 1, bit_depth = 8, color_type = PNG_COLOR_TYPE_RGB;
  bool interlaced = false;
  std::vector<png_color> palette;
  std::vector<png_byte> palette_alpha;      // tRNS of a palette image
  std::optional<png_color_16> transparent;  // tRNS of a grey or RGB image
  std::vector<std::vector<png_byte>> rows;
};

bool write_raw_png(const std::string& path, const RawPng& raw) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) return false;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  std::vector<png_bytep> rows;
  for (const auto& row : raw.rows) rows.push_back(const_cast<png_bytep>(row.data()));
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(file);
    return false;
  }
  png_init_io(png, file);
  png_set_IHDR(png, info, raw.width, raw.height, raw.bit_depth, raw.color_type,
               raw.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (!raw.palette.empty()) png_set_PLTE(png, info, raw.palette.data(), static_cast<int>(raw.palette.size()));
  if (!raw.palette_alpha.empty())
    png_set_tRNS(png, info, raw.palette_alpha.data(), static_cast<int>(raw.palette_alpha.size()), nullptr);
  if (raw.transparent) png_set_tRNS(png, info, nullptr, 0, &*raw.transparent);
  png_write_info(png, info);
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return std::fclose(file) == 0;
}

// A pixel back in 0..255, to compare with the samples written.
std::array<int, 4> pixel(const Image& image, int x, int y) {
  const float* p = image.at(x, y);
  return {static_cast<int>(std::lround(p[0] * 255)), static_cast<int>(std::lround(p[1] * 255)),
          static_cast<int>(std::lround(p[2] * 255)), static_cast<int>(std::lround(p[3] * 255))};
}

class PngFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("passlab_png_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write_bytes(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return path(name);
  }
  static std::string bytes_of(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  std::string write_raw(const std::string& name, const RawPng& raw) const {
    EXPECT_TRUE(write_raw_png(path(name), raw));
    return path(name);
  }
  static Image read_ok(const std::string& file) {
    lang::Diagnostics found;
    std::optional<Image> image = read_png(file, &found);
    const Problems problems = test::located(found);
    EXPECT_TRUE(image.has_value()) << (problems.empty() ? "" : problems[0].text());
    EXPECT_TRUE(problems.empty());
    return image.value_or(Image());
  }
  // Reading `file` fails with exactly one problem about the file as a whole.
  static Problem read_fails(const std::string& file) {
    lang::Diagnostics found;
    EXPECT_FALSE(read_png(file, &found).has_value());
    const Problems problems = test::located(found);
    EXPECT_EQ(problems.size(), 1u);
    if (problems.empty()) return {};
    EXPECT_EQ(problems[0].file, file);
    EXPECT_EQ(problems[0].line, 0);
    return problems[0];
  }

  // Every 8-bit value appears in some channel.
  static Image gradient() {
    Image image(8, 9);
    for (std::size_t i = 0; i < image.rgba.size(); ++i) image.rgba[i] = static_cast<float>((i * 7) % 256) / 255.0f;
    return image;
  }

  fs::path dir_;
};

TEST(Image, ConstructorFillsEveryPixel) {
  Image image(3, 2, {0.25f, 0.5f, 0.75f, 1});
  ASSERT_EQ(image.rgba.size(), 3u * 2 * 4);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x) {
      EXPECT_EQ(image.at(x, y)[0], 0.25f);
      EXPECT_EQ(image.at(x, y)[3], 1.0f);
    }
  EXPECT_TRUE(Image(0, 5).rgba.empty());
}


TEST_F(PngFiles, RoundTripIsExactAt8BitValues) {
  const Image image = gradient();
  std::string error;
  ASSERT_TRUE(write_png(path("g.png"), image, &error)) << error;
  EXPECT_FALSE(fs::exists(path("g.png.tmp")));
  const Image back = read_ok(path("g.png"));
  ASSERT_EQ(back.width, image.width);
  ASSERT_EQ(back.height, image.height);
  EXPECT_EQ(back.rgba, image.rgba);
}

TEST_F(PngFiles, SameImageGivesSameBytesWithoutTimeOrGamma) {
  std::string error;
  ASSERT_TRUE(write_png(path("a.png"), gradient(), &error)) << error;
  ASSERT_TRUE(write_png(path("b.png"), gradient(), &error)) << error;
  const std::string a = bytes_of(path("a.png"));
  EXPECT_EQ(a, bytes_of(path("b.png")));
  EXPECT_EQ(a.find("tIME"), std::string::npos);
  EXPECT_EQ(a.find("gAMA"), std::string::npos);
}

TEST_F(PngFiles, ClampsAndRoundsToNearest) {
  Image image(2, 2);
  image.rgba = {-1.0f, 2.0f, std::numeric_limits<float>::quiet_NaN(), 0.5f,  // 0, 255, 0, 128
                10.4f / 255, 10.6f / 255, std::numeric_limits<float>::infinity(), 1.0f,
                -std::numeric_limits<float>::infinity(), 254.7f / 255, 0.4f / 255, 0.6f / 255,
                1.0f, 0.0f, 1e-9f, 0.9999f};
  std::string error;
  ASSERT_TRUE(write_png(path("c.png"), image, &error)) << error;
  const Image back = read_ok(path("c.png"));
  EXPECT_EQ(pixel(back, 0, 0), (std::array<int, 4>{0, 255, 0, 128}));
  EXPECT_EQ(pixel(back, 1, 0), (std::array<int, 4>{10, 11, 255, 255}));
  EXPECT_EQ(pixel(back, 0, 1), (std::array<int, 4>{0, 255, 0, 1}));
  EXPECT_EQ(pixel(back, 1, 1), (std::array<int, 4>{255, 0, 0, 255}));
}

TEST_F(PngFiles, WriteReplacesAnExistingFile) {
  write_bytes("r.png", "old contents");
  std::string error;
  ASSERT_TRUE(write_png(path("r.png"), Image(1, 1, {1, 0, 0, 1}), &error)) << error;
  EXPECT_EQ(pixel(read_ok(path("r.png")), 0, 0), (std::array<int, 4>{255, 0, 0, 255}));
  EXPECT_FALSE(fs::exists(path("r.png.tmp")));
}

TEST_F(PngFiles, WriteFailuresNameThePath) {
  std::string error;
  const std::string nowhere = path("no/such/dir/x.png");
  EXPECT_FALSE(write_png(nowhere, Image(1, 1), &error));
  EXPECT_NE(error.find(nowhere), std::string::npos) << error;

  error.clear();
  EXPECT_FALSE(write_png(path("empty.png"), Image(), &error));
  EXPECT_NE(error.find(path("empty.png")), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(path("empty.png")));

  Image inconsistent(2, 2);
  inconsistent.rgba.pop_back();
  EXPECT_FALSE(write_png(path("bad.png"), inconsistent, &error));
  EXPECT_FALSE(fs::exists(path("bad.png.tmp")));
}

TEST_F(PngFiles, ReadsGrey) {
  RawPng raw;
  raw.width = 3;
  raw.color_type = PNG_COLOR_TYPE_GRAY;
  raw.rows = {{0, 100, 255}};
  const Image image = read_ok(write_raw("grey.png", raw));
  ASSERT_EQ(image.width, 3);
  EXPECT_EQ(pixel(image, 0, 0), (std::array<int, 4>{0, 0, 0, 255}));
  EXPECT_EQ(pixel(image, 1, 0), (std::array<int, 4>{100, 100, 100, 255}));
  EXPECT_EQ(pixel(image, 2, 0), (std::array<int, 4>{255, 255, 255, 255}));
}

TEST_F(PngFiles, ReadsTwoBitGreyWithATransparentShade) {
  RawPng raw;
  raw.width = 4;
  raw.bit_depth = 2;
  raw.color_type = PNG_COLOR_TYPE_GRAY;
  raw.rows = {{0b00'01'10'11}};
  raw.transparent = png_color_16{0, 0, 0, 0, 2};  // grey level 2 (170) is transparent
  const Image image = read_ok(write_raw("grey2.png", raw));
  ASSERT_EQ(image.width, 4);
  EXPECT_EQ(pixel(image, 0, 0), (std::array<int, 4>{0, 0, 0, 255}));
  EXPECT_EQ(pixel(image, 1, 0), (std::array<int, 4>{85, 85, 85, 255}));
  EXPECT_EQ(pixel(image, 2, 0), (std::array<int, 4>{170, 170, 170, 0}));
  EXPECT_EQ(pixel(image, 3, 0), (std::array<int, 4>{255, 255, 255, 255}));
}

TEST_F(PngFiles, ReadsGreyAlpha) {
  RawPng raw;
  raw.width = 2;
  raw.color_type = PNG_COLOR_TYPE_GRAY_ALPHA;
  raw.rows = {{10, 20, 30, 40}};
  const Image image = read_ok(write_raw("ga.png", raw));
  EXPECT_EQ(pixel(image, 0, 0), (std::array<int, 4>{10, 10, 10, 20}));
  EXPECT_EQ(pixel(image, 1, 0), (std::array<int, 4>{30, 30, 30, 40}));
}

TEST_F(PngFiles, Reads16BitRgbAndRgba) {
  // Samples k * 257 are exactly k at 8 bits.
  RawPng rgb;
  rgb.bit_depth = 16;
  rgb.rows = {{0x0A, 0x0A, 0x80, 0x80, 0xFF, 0xFF}};
  EXPECT_EQ(pixel(read_ok(write_raw("rgb16.png", rgb)), 0, 0), (std::array<int, 4>{10, 128, 255, 255}));

  RawPng rgba = rgb;
  rgba.color_type = PNG_COLOR_TYPE_RGB_ALPHA;
  rgba.rows = {{0x01, 0x01, 0x02, 0x02, 0x03, 0x03, 0x40, 0x40}};
  EXPECT_EQ(pixel(read_ok(write_raw("rgba16.png", rgba)), 0, 0), (std::array<int, 4>{1, 2, 3, 64}));
}

TEST_F(PngFiles, ReadsPaletteWithTransparency) {
  RawPng raw;
  raw.width = 3;
  raw.color_type = PNG_COLOR_TYPE_PALETTE;
  raw.palette = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}};
  raw.palette_alpha = {0, 128};  // the third entry has no alpha: opaque
  raw.rows = {{2, 1, 0}};
  const Image image = read_ok(write_raw("pal.png", raw));
  EXPECT_EQ(pixel(image, 0, 0), (std::array<int, 4>{0, 0, 255, 255}));
  EXPECT_EQ(pixel(image, 1, 0), (std::array<int, 4>{0, 255, 0, 128}));
  EXPECT_EQ(pixel(image, 2, 0), (std::array<int, 4>{255, 0, 0, 0}));

  raw.palette_alpha.clear();
  EXPECT_EQ(pixel(read_ok(write_raw("opaque.png", raw)), 2, 0), (std::array<int, 4>{255, 0, 0, 255}));
}

TEST_F(PngFiles, ReadsInterlaced) {
  RawPng raw;
  raw.width = raw.height = 9;
  raw.interlaced = true;
  for (int y = 0; y < 9; ++y) {
    std::vector<png_byte> row;
    for (int x = 0; x < 9; ++x) row.insert(row.end(), {png_byte(x * 20), png_byte(y * 20), png_byte(x + y)});
    raw.rows.push_back(row);
  }
  const Image image = read_ok(write_raw("adam7.png", raw));
  ASSERT_EQ(image.height, 9);
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 9; ++x) EXPECT_EQ(pixel(image, x, y), (std::array<int, 4>{x * 20, y * 20, x + y, 255}));
}

TEST_F(PngFiles, MissingFileOrNotAPngIsAProblem) {
  EXPECT_NE(read_fails(path("missing.png")).message.find("cannot open"), std::string::npos);
  EXPECT_NE(read_fails(write_bytes("text.png", "hello, this is not a picture")).message.find("not a PNG"),
            std::string::npos);
  EXPECT_NE(read_fails(write_bytes("empty.png", "")).message.find("not a PNG"), std::string::npos);
  read_fails(dir_.string());  // a directory
}

TEST_F(PngFiles, EveryTruncationIsAProblem) {
  std::string error;
  ASSERT_TRUE(write_png(path("whole.png"), gradient(), &error)) << error;
  const std::string whole = bytes_of(path("whole.png"));
  for (std::size_t size = 0; size < whole.size(); ++size) {
    SCOPED_TRACE(size);
    const Problem problem = read_fails(write_bytes("cut.png", whole.substr(0, size)));
    if (size >= 8) {  // a whole signature: the rest is cut off
      EXPECT_NE(problem.message.find("truncated"), std::string::npos) << problem.message;
    }
  }
}

TEST_F(PngFiles, CorruptDataIsAProblem) {
  std::string error;
  ASSERT_TRUE(write_png(path("whole.png"), gradient(), &error)) << error;
  std::string bytes = bytes_of(path("whole.png"));
  const std::size_t idat = bytes.find("IDAT");
  ASSERT_NE(idat, std::string::npos);
  bytes[idat + 10] ^= 0x55;  // inside the compressed data (and so its CRC no longer matches)
  const Problem problem = read_fails(write_bytes("corrupt.png", bytes));
  EXPECT_NE(problem.text().find("corrupt.png: error: bad PNG file: IDAT: "), std::string::npos)
      << problem.text();
}

TEST_F(PngFiles, AbsurdSizeIsAProblem) {
  RawPng raw;
  raw.width = 20000;
  raw.color_type = PNG_COLOR_TYPE_GRAY;
  raw.rows = {std::vector<png_byte>(20000, 7)};
  const Problem problem = read_fails(write_raw("wide.png", raw));
  EXPECT_NE(problem.message.find("20000 x 1"), std::string::npos) << problem.message;
}

}  // namespace
}  // namespace passlab::sim
