#ifndef DEMO_PARSE_H
#define DEMO_PARSE_H
struct settings {
	int level;
	int retries;
	int unknown;
};
int parse_settings(const char *s, struct settings *set);
#endif
