#version 330
// One instanced quad per 2D draw item (box, shape, pattern, noise, sprite, glyph). Frames are
// tiles of one framebuffer; pixel y grows downwards and maps to NDC -1, so the read-back rows
// come out top row first.
//
// A frame comes out the same, bit for bit, whichever tile it is drawn in: corners are snapped to
// 1/256 px and mapped through a power-of-two viewport (u_viewport_size), so every step from frame
// pixels to the rasteriser's fixed-point positions is exact and a tile only shifts them by whole
// pixels; the fragment shader measures positions from gl_FragCoord and the tile's origin rather
// than interpolating them (interpolation in llvmpipe depends on the absolute position).
in vec2 in_corner;
in vec4 in_rect;    // x0 y0 x1 y1 in frame pixels
in vec4 in_uv;      // atlas rect (sprites, glyphs) or pattern parameters
in vec4 in_color;
in vec4 in_color2;
in vec4 in_params;  // kind, p0, p1, tile

uniform vec2 u_frame_size;
uniform vec2 u_viewport_size;
uniform int u_columns;

flat out vec2 v_origin;  // the frame's tile, in framebuffer pixels
flat out vec4 v_rect;
flat out vec2 v_size;
flat out vec4 v_color;
flat out vec4 v_color2;
flat out vec4 v_params;
flat out vec4 v_uv_rect;

void main() {
    vec2 pixel = floor(mix(in_rect.xy, in_rect.zw, in_corner) * 256.0 + 0.5) / 256.0;
    int tile = int(in_params.w + 0.5);
    vec2 origin = vec2(tile % u_columns, tile / u_columns) * u_frame_size;
    gl_Position = vec4((origin + pixel) / u_viewport_size * 2.0 - 1.0, 0.0, 1.0);
    v_origin = origin;
    v_rect = in_rect;
    v_size = in_rect.zw - in_rect.xy;
    v_color = in_color;
    v_color2 = in_color2;
    v_params = in_params;
    v_uv_rect = in_uv;
}
