-- bench/drivers/bench.lua -- a deterministic, CPU-bound Lua workload:
-- recursion, tables (insert, sort with a comparator, hashing), strings
-- (format, gsub, gmatch, find), metatables, a numeric kernel and
-- coroutines.  Prints a checksum.   usage: lua bench.lua [SCALE]
local scale = tonumber(arg and arg[1]) or 1
local h = 0
local function mix(v) h = (h * 31 + v) % 4294967296 end

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
for _ = 1, scale do mix(fib(25)) end

local seed = 42
local function rnd() seed = (seed * 1103515245 + 12345) % 2147483648; return seed end
for _ = 1, scale do
  local t, m = {}, {}
  for i = 1, 20000 do t[i] = rnd() % 100000; m["k" .. (t[i] % 5000)] = i end
  table.sort(t, function(a, b) return a > b end)
  local s = 0
  for k, v in pairs(m) do s = s + #k + v end
  mix(t[1]); mix(t[#t]); mix(s)
end

for _ = 1, scale do
  local parts = {}
  for i = 1, 5000 do parts[#parts + 1] = string.format("%d:%x:%5.2f;", i, i * 7, i / 3) end
  local s = table.concat(parts)
  local n = 0
  s = s:gsub("(%d+):(%x+)", function(a, b) n = n + #a + #b; return b .. a end)
  for w in s:gmatch("[^;]+") do n = n + #w end
  mix(n); mix(#s); mix(select(2, s:find("ff", 1, true)) or 0)
end

local Point = {}
Point.__index = Point
function Point.new(x, y) return setmetatable({x = x, y = y}, Point) end
function Point.__add(a, b) return Point.new(a.x + b.x, a.y + b.y) end
function Point:len2() return self.x * self.x + self.y * self.y end
for _ = 1, scale do
  local acc = Point.new(0, 0)
  for i = 1, 30000 do acc = acc + Point.new(i % 7, i % 11) end
  mix(acc:len2() % 1000003)
end

local function A(i, j) local ij = i + j - 1; return 1.0 / (ij * (ij - 1) * 0.5 + i) end
for _ = 1, scale do
  local n, u, v = 100, {}, {}
  for i = 1, n do u[i] = 1 end
  for _ = 1, 5 do
    for i = 1, n do local s = 0; for j = 1, n do s = s + A(i, j) * u[j] end; v[i] = s end
    for i = 1, n do local s = 0; for j = 1, n do s = s + A(j, i) * v[j] end; u[i] = s end
  end
  mix(math.floor(u[1] * 1e6))
end

for _ = 1, scale do
  local co = coroutine.wrap(function() for i = 1, 20000 do coroutine.yield(i) end end)
  local s = 0
  for _ = 1, 20000 do s = s + co() end
  mix(s % 1000003)
end
print(string.format("luabench scale=%d checksum=%08x", scale, h))
