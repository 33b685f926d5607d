// cogsim._core: the C++ engines, one registration function per family.
#include <pybind11/pybind11.h>

namespace py = pybind11;

void register_cube(py::module_& m);
void register_rng(py::module_& m);
void register_kidgym(py::module_& m);
void register_wilt(py::module_& m);
void register_pixels(py::module_& m);
void register_compose(py::module_& m);
void register_tiles(py::module_& m);
void register_rect_frames(py::module_& m);
void register_png(py::module_& m);
void register_maze_look(py::module_& m);
void register_paste(py::module_& m);

PYBIND11_MODULE(_core, m) {
  m.doc() =
      "cogsim C++ core: deterministic, batched engines (cube, pairs and maze, kidgym, wilt), the renderer's pixel "
      "repacking and its CPU compositor of 2D frames, frames of a template and flat-colour rectangles, PNG encoding";
  register_cube(m);
  register_rng(m);
  register_kidgym(m);
  register_wilt(m);
  register_pixels(m);
  register_compose(m);
  register_tiles(m);
  register_rect_frames(m);
  register_png(m);
  register_maze_look(m);
  register_paste(m);
}
