/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nla.h	netlink attributes in a plain buffer, for opts.c and stats.c:
 *		struct nlattr of <linux/netlink.h>, which has the layout of
 *		tc's struct rtattr, so that neither libnl nor tc is needed.
 */
#ifndef AICLASS_LIB_NLA_H
#define AICLASS_LIB_NLA_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <linux/netlink.h>

#define AIC_NLA_DATA(a)	((const char *)(a) + NLA_HDRLEN)
#define AIC_NLA_LEN(a)	((size_t)(a)->nla_len - NLA_HDRLEN)

/* Every whole attribute in payload[0..len). */
#define aic_nla_for_each(a, payload, len, rem)				\
	for ((a) = (const struct nlattr *)(payload), (rem) = (int)(len);\
	     (rem) >= NLA_HDRLEN && (a)->nla_len >= NLA_HDRLEN &&	\
	     (a)->nla_len <= (rem);					\
	     (rem) -= NLA_ALIGN((a)->nla_len),				\
	     (a) = (const struct nlattr *)((const char *)(a) +		\
					   NLA_ALIGN((a)->nla_len)))

/* The unsigned value of an attribute of exactly width bytes (1, 2, 4, 8). */
static inline bool aic_nla_uint(const struct nlattr *a, unsigned int width,
				uint64_t *v)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;

	if (AIC_NLA_LEN(a) != width)
		return false;
	switch (width) {
	case 1:
		memcpy(&u8, AIC_NLA_DATA(a), 1);
		*v = u8;
		return true;
	case 2:
		memcpy(&u16, AIC_NLA_DATA(a), 2);
		*v = u16;
		return true;
	case 4:
		memcpy(&u32, AIC_NLA_DATA(a), 4);
		*v = u32;
		return true;
	case 8:
		memcpy(v, AIC_NLA_DATA(a), 8);
		return true;
	}
	return false;
}

#endif /* AICLASS_LIB_NLA_H */
