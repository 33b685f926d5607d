"""What a look that draws with its own shaders needs of the renderer's GL (the 3D maze's views): making
a context current, framebuffer targets cut into frame tiles, and reading the tiles back as frames."""

from cogsim.render._context import make_current
from cogsim.render._tiles import Targets, TileLayout, layout, read_frames

__all__ = ["Targets", "TileLayout", "layout", "make_current", "read_frames"]
