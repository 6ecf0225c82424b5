-- tests/tool/src/unique.lua -- a short Lua run whose full trace is
-- about two million records (tests/suites.d/55-unique.sh).
local t = {}
for i = 1, 2000 do t[i] = string.format("%d", i * 7) end
table.sort(t)
local s = table.concat(t, ",")
local n = 0 for w in s:gmatch("%d+") do n = n + #w end
print(#s, n)
