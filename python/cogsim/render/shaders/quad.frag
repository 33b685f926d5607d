#version 330
// Shades one 2D draw item. Output is premultiplied alpha (blend ONE, ONE_MINUS_SRC_ALPHA).
// Edges are anti-aliased from signed distances measured in pixels.
//
// The program is compiled per item kind and variant (KIND and VARIANT, the shape or pattern id,
// are defined by the loader): CPU rasterisers such as llvmpipe run every branch of an `if` for
// every fragment, so one shader for all kinds would pay for all of them.
#define KIND_BOX 0      // rounded box; p0 corner radius px, p1 border width px (border colour = color2)
#define KIND_SHAPE 1    // p0 shape id, p1 rotation (radians)
#define KIND_PATTERN 2  // uv.x pattern id, uv.y repeats across the item, uv.z angle
#define KIND_NOISE 3    // uv.x seed, uv.y cells per side: blocky value noise from a PCG hash
#define KIND_SPRITE 4   // uv = atlas rect; color = tint
#define KIND_GLYPH 5    // uv = atlas rect; color = text colour

uniform sampler2D u_sprites;
uniform sampler2D u_glyphs;
uniform vec2 u_frame_size;

flat in vec2 v_origin;
flat in vec4 v_rect;
flat in vec2 v_size;
flat in vec4 v_color;
flat in vec4 v_color2;
flat in vec4 v_params;
flat in vec4 v_uv_rect;

out vec4 f_color;

vec4 premultiplied(vec4 c) { return vec4(c.rgb * c.a, c.a); }
float coverage(float distance_px) { return clamp(0.5 - distance_px, 0.0, 1.0); }

float sd_box(vec2 p, vec2 half_size, float radius) {
    vec2 q = abs(p) - half_size + radius;
    return length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - radius;
}

// Shapes in a unit frame (|p| <= 1), after Inigo Quilez's 2D distance functions.
float sd_triangle(vec2 p, vec2 p0, vec2 p1, vec2 p2) {
    vec2 e0 = p1 - p0, e1 = p2 - p1, e2 = p0 - p2;
    vec2 v0 = p - p0, v1 = p - p1, v2 = p - p2;
    vec2 pq0 = v0 - e0 * clamp(dot(v0, e0) / dot(e0, e0), 0.0, 1.0);
    vec2 pq1 = v1 - e1 * clamp(dot(v1, e1) / dot(e1, e1), 0.0, 1.0);
    vec2 pq2 = v2 - e2 * clamp(dot(v2, e2) / dot(e2, e2), 0.0, 1.0);
    float s = sign(e0.x * e2.y - e0.y * e2.x);
    vec2 d = min(min(vec2(dot(pq0, pq0), s * (v0.x * e0.y - v0.y * e0.x)),
                     vec2(dot(pq1, pq1), s * (v1.x * e1.y - v1.y * e1.x))),
                     vec2(dot(pq2, pq2), s * (v2.x * e2.y - v2.y * e2.x)));
    return -sqrt(d.x) * sign(d.y);
}
float sd_rhombus(vec2 p, vec2 b) {
    p = abs(p);
    vec2 q = b - 2.0 * p;
    float h = clamp((q.x * b.x - q.y * b.y) / dot(b, b), -1.0, 1.0);
    float d = length(p - 0.5 * b * vec2(1.0 - h, 1.0 + h));
    return d * sign(p.x * b.y + p.y * b.x - b.x * b.y);
}
float sd_star5(vec2 p, float r, float rf) {
    p.y = -p.y;
    const vec2 k1 = vec2(0.809016994375, -0.587785252292);
    const vec2 k2 = vec2(-k1.x, k1.y);
    p.x = abs(p.x);
    p -= 2.0 * max(dot(k1, p), 0.0) * k1;
    p -= 2.0 * max(dot(k2, p), 0.0) * k2;
    p.x = abs(p.x);
    p.y -= r;
    vec2 ba = rf * vec2(-k1.y, k1.x) - vec2(0, 1);
    float h = clamp(dot(p, ba) / dot(ba, ba), 0.0, r);
    return length(p - ba * h) * sign(p.y * ba.x - p.x * ba.y);
}
float sd_hexagon(vec2 p, float r) {
    const vec3 k = vec3(-0.866025404, 0.5, 0.577350269);
    p = abs(p);
    p -= 2.0 * min(dot(k.xy, p), 0.0) * k.xy;
    p -= vec2(clamp(p.x, -k.z * r, k.z * r), r);
    return length(p) * sign(p.y);
}
float sd_cross(vec2 p, float arm) {
    p = abs(p);
    return min(sd_box(p, vec2(0.9, arm), 0.0), sd_box(p, vec2(arm, 0.9), 0.0));
}
float sd_heart(vec2 p) {
    p.y = -p.y * 1.05 + 0.55;
    p.x = abs(p.x) * 0.95;
    if (p.y + p.x > 1.0) return sqrt(dot(p - vec2(0.25, 0.75), p - vec2(0.25, 0.75))) - sqrt(2.0) / 4.0;
    return sqrt(min(dot(p - vec2(0.0, 1.0), p - vec2(0.0, 1.0)),
                    dot(p - 0.5 * max(p.x + p.y, 0.0), p - 0.5 * max(p.x + p.y, 0.0)))) * sign(p.x - p.y);
}

float sd_shape(int shape, vec2 p) {
    if (shape == 0) return length(p) - 0.9;                                   // circle
    if (shape == 1) return sd_box(p, vec2(0.8), 0.08);                        // square
    if (shape == 2) return sd_triangle(p, vec2(0.0, -0.9), vec2(0.8, 0.75), vec2(-0.8, 0.75)); // triangle, apex up
    if (shape == 3) return sd_rhombus(p, vec2(0.75, 0.95));                   // diamond
    if (shape == 4) return sd_star5(p * 1.05 + vec2(0.0, 0.08), 0.95, 0.45);  // star
    if (shape == 5) return sd_hexagon(p, 0.82);                               // hexagon
    if (shape == 6) return sd_cross(p, 0.3);                                  // cross
    if (shape == 7) return abs(length(p) - 0.66) - 0.22;                      // ring
    if (shape == 8) return sd_heart(p);                                       // heart
    return sd_box(p, vec2(0.92, 0.38), 0.2);                                  // bar
}

float pattern_value(int pattern, vec2 q) {
    float aa = max(fwidth(q.x), fwidth(q.y));
    if (pattern == 0) return smoothstep(-aa, aa, sin(q.x * 6.2831853));                    // stripes
    if (pattern == 1) return smoothstep(-aa, aa, sin(q.x * 3.14159265) * sin(q.y * 3.14159265)); // checker
    if (pattern == 2) return 1.0 - smoothstep(0.3 - aa, 0.3 + aa, length(fract(q) - 0.5));       // dots
    if (pattern == 3) { vec2 g = abs(fract(q) - 0.5); return smoothstep(0.38 - aa, 0.38 + aa, max(g.x, g.y)); } // grid
    if (pattern == 4) return smoothstep(-aa * 2.0, aa * 2.0, sin((q.x + 0.25 * sin(q.y * 6.2831853)) * 6.2831853)); // waves
    if (pattern == 5) return smoothstep(-aa, aa, sin((q.x + abs(fract(q.y) - 0.5)) * 6.2831853));  // zigzag
    if (pattern == 6) return smoothstep(-aa * 2.0, aa * 2.0, sin(length(q - 0.5 * vec2(1.0)) * 6.2831853)); // rings
    vec2 g = abs(fract(q) - 0.5); return smoothstep(0.3 - aa, 0.3 + aa, min(g.x, g.y) + 0.2);    // tiles
}

uint pcg_hash(uint v) {
    uint state = v * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

void main() {
    vec2 v_pixel = gl_FragCoord.xy - v_origin;  // frame pixels, as the vertex shader's
    vec2 v_local = (v_pixel - v_rect.xy) / v_size;  // 0..1 across the item
    vec2 v_uv = mix(v_uv_rect.xy, v_uv_rect.zw, v_local);
    // Items never draw outside their own frame tile.
    if (any(lessThan(v_pixel, vec2(0.0))) || any(greaterThan(v_pixel, u_frame_size))) discard;
    vec2 half_size = 0.5 * v_size;
    vec2 p = (v_local - 0.5) * v_size;  // pixels from the item's centre
    vec4 colour;
#if KIND == KIND_BOX
    float radius = min(v_params.y, min(half_size.x, half_size.y));
    float d = sd_box(p, half_size, radius);
    float inner = v_params.z > 0.0 ? coverage(d + v_params.z) : 1.0;
    colour = mix(premultiplied(v_color2), premultiplied(v_color), inner) * coverage(d);
#elif KIND == KIND_SHAPE
    float scale = min(half_size.x, half_size.y);
    float a = v_params.z;
    vec2 q = mat2(cos(a), sin(a), -sin(a), cos(a)) * (p / scale);
    colour = premultiplied(v_color) * coverage(sd_shape(VARIANT, q) * scale);
#elif KIND == KIND_PATTERN
    float a = v_uv_rect.z;
    vec2 q = mat2(cos(a), sin(a), -sin(a), cos(a)) * (v_local - 0.5) * v_uv_rect.y;
    colour = mix(premultiplied(v_color2), premultiplied(v_color), pattern_value(VARIANT, q));
#elif KIND == KIND_NOISE
    uint seed = uint(v_uv_rect.x + 0.5);
    uvec2 cell = uvec2(min(v_local * v_uv_rect.y, vec2(v_uv_rect.y - 1.0)));
    uint h = pcg_hash(seed ^ pcg_hash(cell.x + 131u * cell.y));
    colour = mix(premultiplied(v_color2), premultiplied(v_color), float(h & 255u) / 255.0);
#elif KIND == KIND_SPRITE
    colour = texture(u_sprites, v_uv) * premultiplied(v_color);
#else
    colour = premultiplied(v_color) * texture(u_glyphs, v_uv).r;
#endif
    f_color = colour;
}
